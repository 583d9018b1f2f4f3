"""The winner of a study as a verl config: YAML plus Hydra overrides, checked against verl."""
