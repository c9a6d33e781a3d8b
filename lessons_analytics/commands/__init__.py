"""One module per command family; ``cli.py`` assembles them into the ``lessons-analytics`` group."""
