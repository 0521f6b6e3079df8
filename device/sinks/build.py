"""Build the configured sinks from the ``[sinks]`` section of the config."""

from __future__ import annotations

from collections.abc import Sequence

from device.config import SinksConfig
from device.sinks import Sink
from device.sinks.gpio import GpioSink
from device.sinks.mqtt import MqttSink
from device.sinks.push import NtfySink, WebhookSink


def build_sinks(config: SinksConfig, names: Sequence[str] = ()) -> list[Sink]:
    """One sink per configured destination (not started: the runtime starts them)."""
    sinks: list[Sink] = [NtfySink(url, names=names) for url in config.ntfy]
    sinks += [WebhookSink(url) for url in config.webhooks]
    if config.mqtt.host:
        mqtt = config.mqtt
        sinks.append(
            MqttSink(mqtt.host, mqtt.port, prefix=mqtt.topic, username=mqtt.username, password=mqtt.password,
                     discovery=mqtt.discovery)
        )
    if config.gpio.buzzer_pin or config.gpio.led_pin:
        sinks.append(GpioSink(config.gpio.buzzer_pin, config.gpio.led_pin))
    return sinks
