"""The Time Vectors game: 4x4x4x4 four-in-a-row with a cyclic time dimension."""
