"""One module per command group; each registers its commands on ``ctxsel.cli.app``."""
