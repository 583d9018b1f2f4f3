"""One trial: run the configuration (runner), score its metrics (scoring), classify and record it (evaluation)."""
