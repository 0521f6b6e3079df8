"""Frame sources: every camera, file and the demo behind one small interface."""
