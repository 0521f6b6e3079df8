"""Subcommands of ``boardcam``; each module exposes ``register(commands, bench_targets)``.

``commands`` and ``bench_targets`` are argparse sub-parser collections; a module
adds parsers to them and sets ``func`` (``args -> exit status``) on each.
"""
