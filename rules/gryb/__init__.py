"""The GRYB bandanna: its 341-node game space, move kinds, lines and shapes, scoring, dice and games."""
