"""Frame sources, runtime loop, referee, alert sinks, persistence and the CLI."""
