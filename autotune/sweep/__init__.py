"""What `autotune run` drives: the backend, the confirmation, the report refreshes and the wandb mirror."""
