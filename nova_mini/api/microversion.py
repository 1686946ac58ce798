"""Microversions: parsing, negotiation and the version-range decorator.

Each API root describes itself with a ``VersionedAPI`` (its service type,
headers and history list); handlers are gated with ``versioned`` only.
"""

import functools
import re

import pecan

from nova_mini import exception

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')


class APIVersion(tuple):
    """A microversion ``(major, minor)`` that compares as numbers."""

    def __new__(cls, text):
        match = _VERSION_RE.match(text)
        if not match:
            raise exception.InvalidAPIVersion(version=text)
        return super().__new__(cls, (int(match.group(1)),
                                     int(match.group(2))))

    def __str__(self):
        return '%d.%d' % self


class VersionedAPI(object):
    """One API root's microversion rules.

    :param service_type: the word in ``OpenStack-API-Version: <type> X.Y``.
    :param legacy_header: the project's own header (X-OpenStack-...).
    :param history: ``[(version, what changed), ...]`` oldest first.
    :param modern_first: whether ``OpenStack-API-Version`` wins over the
        legacy header when both are sent.
    """

    def __init__(self, service_type, legacy_header, history,
                 modern_first=True):
        self.service_type = service_type
        self.legacy_header = legacy_header
        self.history = history
        self.modern_first = modern_first
        self.min_version = APIVersion(history[0][0])
        self.max_version = APIVersion(history[-1][0])

    def requested(self, headers):
        """The version string the client asked for, or None."""
        modern = None
        for item in headers.get('OpenStack-API-Version', '').split(','):
            words = item.split()
            if len(words) == 2 and words[0].lower() == self.service_type:
                modern = words[1]
        legacy = headers.get(self.legacy_header)
        if self.modern_first:
            return modern or legacy
        return legacy or modern

    def negotiate(self, headers):
        """Return the APIVersion of a request.

        :raises InvalidAPIVersion: malformed (HTTP 400).
        :raises APIVersionNotSupported: outside this API's range (HTTP 406).
        """
        text = self.requested(headers)
        if text is None:
            return self.min_version
        text = text.strip()
        if text == 'latest':
            return self.max_version
        version = APIVersion(text)
        if not self.min_version <= version <= self.max_version:
            raise exception.APIVersionNotSupported(
                version=text, min_version=str(self.min_version),
                max_version=str(self.max_version))
        return version

    def response_headers(self, version):
        value = str(version)
        return [('OpenStack-API-Version', '%s %s' % (self.service_type,
                                                     value)),
                (self.legacy_header, value),
                ('Vary', 'OpenStack-API-Version, %s' % self.legacy_header)]


def versioned(min_version=None, max_version=None):
    """Expose a handler only for requests within [min, max] (inclusive).

    Outside the range the request is answered as if the resource did not
    exist (404), as Nova and Ironic do for methods added later.
    """
    lower = APIVersion(min_version) if min_version else None
    upper = APIVersion(max_version) if max_version else None

    def decorator(func):
        # updated=(): the range is this layer's own, not inherited from
        # the (validation) decorator it wraps.
        @functools.wraps(func, updated=())
        def wrapper(self, *args):
            version = pecan.request.api_version
            if (lower and version < lower) or (upper and version > upper):
                raise exception.VersionNotFoundForAPIMethod(
                    version=str(version))
            return func(self, *args)
        wrapper.min_version = lower
        wrapper.max_version = upper
        return wrapper
    return decorator
