"""The Flask dashboard, JSON API, SSE stream and calibration wizard."""
