"""Board specs, camera model, calibration files, colour model and drift detection."""
