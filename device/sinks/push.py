"""HTTP push sinks: an ntfy-compatible topic URL and a generic JSON webhook."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from device.sinks import Sink, SinkError
from device.sinks.messages import alert_message

logger = logging.getLogger(__name__)

USER_AGENT = "boardcam"


def post(url: str, body: bytes, headers: Mapping[str, str], timeout: float) -> int:
    """POST ``body``; returns the status. Raises :class:`SinkError` for network errors and non-2xx."""
    request = urllib.request.Request(url, data=body, method="POST", headers={"User-Agent": USER_AGENT, **headers})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        raise SinkError(f"{url} answered {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise SinkError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from exc


def _label(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def ntfy_request(record: Mapping[str, Any], names: Sequence[str] = ()) -> tuple[bytes, dict[str, str]]:
    """Body and headers of an ntfy publish: the text as body, title/priority/tags as headers."""
    message = alert_message(record, names)
    headers = {
        # HTTP headers are latin-1; ntfy documents RFC 2047 for others, plain ASCII keeps it simple.
        "Title": message.title.encode("ascii", "replace").decode(),
        "Priority": str(message.priority),
        "Content-Type": "text/plain; charset=utf-8",
    }
    if message.tags:
        headers["Tags"] = ",".join(message.tags)
    return message.text.encode("utf-8"), headers


class NtfySink(Sink):
    """Push to an ntfy topic URL (ntfy.sh or a self-hosted server); ``token`` for protected topics."""

    def __init__(self, url: str, *, token: str = "", names: Sequence[str] = (), timeout: float = 5.0) -> None:
        self.url = url
        self.token = token
        self.names = tuple(names)
        self.timeout = timeout
        self.name = f"ntfy {_label(url)}"

    def deliver(self, record: Mapping[str, Any]) -> None:
        body, headers = ntfy_request(record, self.names)
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        post(self.url, body, headers, self.timeout)


class WebhookSink(Sink):
    """POST every record as JSON to a URL (Node-RED, Home Assistant webhooks, a script)."""

    def __init__(self, url: str, *, timeout: float = 5.0) -> None:
        self.url = url
        self.timeout = timeout
        self.name = f"webhook {_label(url)}"

    def deliver(self, record: Mapping[str, Any]) -> None:
        body = json.dumps(dict(record), separators=(",", ":")).encode("utf-8")
        post(self.url, body, {"Content-Type": "application/json"}, self.timeout)
