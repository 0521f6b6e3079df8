"""Buzzer and LED on a Raspberry Pi's GPIO header (gpiozero, imported only when this sink starts)."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Mapping
from typing import Any

from device.sinks import Sink, SinkError

logger = logging.getLogger(__name__)

INSTALL_HINT = "gpiozero is not installed: on Raspberry Pi OS run `sudo apt install python3-gpiozero`"

#: Beep pattern per alert type: (on seconds, off seconds, repetitions).
PATTERNS: dict[str, tuple[float, float, int]] = {
    "win": (1.0, 0.2, 1),
    "draw": (0.5, 0.2, 2),
    "illegal": (0.15, 0.1, 3),
    "confirm_hidden": (0.1, 0.3, 2),
    "camera_moved": (0.3, 0.3, 2),
    "camera_status": (0.1, 0.1, 1),
    "move": (0.05, 0.05, 1),
}


def beep_pattern(record: Mapping[str, Any]) -> tuple[float, float, int]:
    """How the buzzer and LED signal one record."""
    return PATTERNS.get(str(record.get("type")), (0.2, 0.2, 1))


class GpioSink(Sink):
    """An active buzzer and/or an LED on BCM pins; blinks in the background (gpiozero's own thread)."""

    def __init__(self, buzzer_pin: int = 0, led_pin: int = 0) -> None:
        if not buzzer_pin and not led_pin:
            raise SinkError("the GPIO sink needs a buzzer pin or an LED pin")
        self.buzzer_pin = buzzer_pin
        self.led_pin = led_pin
        self.name = f"gpio buzzer={buzzer_pin or '-'} led={led_pin or '-'}"
        self._devices: list[Any] = []

    def start(self) -> None:
        try:
            gpiozero = importlib.import_module("gpiozero")
        except ImportError as exc:
            raise SinkError(INSTALL_HINT) from exc
        try:
            if self.buzzer_pin:
                self._devices.append(gpiozero.Buzzer(self.buzzer_pin))
            if self.led_pin:
                self._devices.append(gpiozero.LED(self.led_pin))
        except Exception as exc:  # gpiozero raises its own errors off a Pi
            self.close()
            raise SinkError(f"cannot claim GPIO pins: {exc}") from exc

    def deliver(self, record: Mapping[str, Any]) -> None:
        if not self._devices:
            raise SinkError(f"{self.name} is not started")
        on, off, times = beep_pattern(record)
        for device in self._devices:
            device.blink(on_time=on, off_time=off, n=times, background=True)

    def close(self) -> None:
        devices, self._devices = self._devices, []
        for device in devices:
            device.close()
