"""Pure game logic for every board boardcam referees (standard library only)."""
