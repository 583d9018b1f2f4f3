"""A sweep's study: its storage and folders, its tables, its progress line and its confirmation phase."""
