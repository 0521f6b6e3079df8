"""The Flask dashboard, JSON API, SSE stream and calibration wizard.

Build the WSGI application with :func:`create_app`; serve it with a production
server (``boardcam serve`` uses waitress).
"""

from web.app import create_app

__all__ = ["create_app"]
