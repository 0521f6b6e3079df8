"""Frames -> observations -> stable snapshots; and the synthetic renderer of boards."""
