#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Microversions: parsing, negotiation, the version-range decorator and
the one predicate handlers and views ask.

Each API root describes itself with a ``VersionedAPI`` (its service type,
headers and history list). Code reads a request's version in two ways
only:

- gates: ``versioned`` on a handler (and the version-keyed schema lists
  of ``nova_mini.api.validation``) serve or refuse a whole route or body;
- ``req.since(versions.X)`` (``VersionedRequest``) shapes an answer:
  whether the version asked for is X or later.

This module is the only one comparing versions (a unit test checks it).
"""

import functools
import re

import pecan

from nova_mini import exception

_VERSION_RE = re.compile(r'^([1-9]\d*)\.([1-9]\d*|0)$')
# The longest version text read. Longer is malformed: no API of ours has
# a version of more than a few digits, and int() of thousands of digits
# raises (Python's int_max_str_digits), which was a 500.
MAX_VERSION_LENGTH = 32
# Version header texts negotiated once and kept, per API root: the
# number of distinct texts kept, and the longest kept.
NEGOTIATED_KEPT = 256
CACHED_TEXT_LENGTH = 64

# WSGI environ key: true for a request to the compute API's v2
# compatibility root (nova_mini.api.compute.legacy_v2), served at the
# first version with the old v2 validation.
LEGACY_V2_KEY = 'nova_mini.legacy_v2'


class APIVersion(tuple):
    """A microversion ``(major, minor)`` that compares as numbers.

    Made from its text (``APIVersion('2.19')``); an APIVersion given
    instead is returned as it is.

    :raises InvalidAPIVersion: the text is not ``Major.Minor``.
    """

    def __new__(cls, text):
        if isinstance(text, APIVersion):
            return text
        match = (len(text) <= MAX_VERSION_LENGTH
                 and _VERSION_RE.match(text))
        if not match:
            raise exception.InvalidAPIVersion(version=text)
        return super().__new__(cls, (int(match.group(1)),
                                     int(match.group(2))))

    def __str__(self):
        return '%d.%d' % self


class NovaHeaders(object):
    """Nova's response headers: the version in both headers, and Vary.

    Refused versions (406) are echoed as asked for, as Nova does.
    """

    def on_success(self, api, version):
        value = str(version)
        return [('OpenStack-API-Version', '%s %s' % (api.service_type,
                                                     value)),
                (api.legacy_header, value),
                ('Vary', 'OpenStack-API-Version, %s' % api.legacy_header)]

    def on_refusal(self, api, requested):
        return self.on_success(api, requested)


class IronicHeaders(object):
    """Ironic's response headers: the version in the legacy header and
    the supported range in ``<legacy>-Minimum/Maximum-Version`` on every
    answer, refusals included (clients negotiate down from those).
    """

    def _range(self, api):
        base = api.legacy_header[:-len('-Version')]
        return [(base + '-Minimum-Version', str(api.min_version)),
                (base + '-Maximum-Version', str(api.max_version))]

    def on_success(self, api, version):
        return [(api.legacy_header, str(version))] + self._range(api)

    def on_refusal(self, api, requested):
        return self._range(api)


class VersionedAPI(object):
    """One API root's microversion rules.

    :param service_type: the word in ``OpenStack-API-Version: <type> X.Y``.
    :param legacy_header: the project's own header (X-OpenStack-...).
    :param history: ``[(version, what changed), ...]`` oldest first.
    :param modern_first: whether ``OpenStack-API-Version`` wins over the
        legacy header when both are sent.
    :param headers: the response-header policy (``NovaHeaders`` or
        ``IronicHeaders``).
    :param malformed: exception class for a malformed version string
        (Nova: an InvalidAPIVersion, a 400; Ironic refuses with a 406).
    :param unsupported: exception class for a version out of range.
    :param latest_any_case: whether ``LATEST`` means ``latest`` too.
    """

    def __init__(self, service_type, legacy_header, history,
                 modern_first=True, headers=None,
                 malformed=exception.MalformedComputeAPIVersion,
                 unsupported=exception.APIVersionNotSupported,
                 latest_any_case=False):
        self.service_type = service_type
        self.legacy_header = legacy_header
        self.history = history
        self.modern_first = modern_first
        self.headers = headers or NovaHeaders()
        self.malformed = malformed
        self.unsupported = unsupported
        self.latest_any_case = latest_any_case
        self.min_version = APIVersion(history[0][0])
        self.max_version = APIVersion(history[-1][0])
        # What the version headers' texts negotiate to, and the headers
        # of an answer at a version: the same for every request sending
        # the same texts (a client sends one or two of them), so kept
        # rather than parsed and formatted again. Bounded; a refusal
        # raises and is not kept; texts over CACHED_TEXT_LENGTH are not
        # kept either.
        self._negotiated = functools.lru_cache(maxsize=NEGOTIATED_KEPT)(
            self._negotiate_texts)
        self._response_headers = functools.lru_cache(maxsize=None)(
            self._response_headers_of)

    def requested(self, headers):
        """Return the version text the client asked for.

        :param headers: the request's headers.
        :returns: the text of the header that wins, or None if none was sent.
        """
        return self._requested_text(
            headers.get('OpenStack-API-Version', ''),
            headers.get(self.legacy_header))

    def _requested_text(self, modern_header, legacy):
        modern = None
        for item in modern_header.split(','):
            words = item.split()
            if len(words) == 2 and words[0].lower() == self.service_type:
                modern = words[1]
        if self.modern_first:
            return modern or legacy
        return legacy or modern

    def negotiate(self, headers):
        """Return the APIVersion of a request.

        :param headers: the request's headers.
        :returns: the version asked for; ``latest`` is the newest, no header
            the oldest.
        :raises InvalidAPIVersion: malformed (HTTP 400; Ironic's root gives
            its own ``malformed`` class).
        :raises APIVersionNotSupported: outside this API's range (HTTP 406).
        """
        modern_header = headers.get('OpenStack-API-Version', '')
        legacy = headers.get(self.legacy_header)
        if (len(modern_header) > CACHED_TEXT_LENGTH
                or (legacy is not None
                    and len(legacy) > CACHED_TEXT_LENGTH)):
            return self._negotiate_texts(modern_header, legacy)
        return self._negotiated(modern_header, legacy)

    def _negotiate_texts(self, modern_header, legacy):
        text = self._requested_text(modern_header, legacy)
        if text is None:
            return self.min_version
        text = text.strip()
        if text == 'latest' or (self.latest_any_case and
                                text.lower() == 'latest'):
            return self.max_version
        try:
            version = APIVersion(text)
        except exception.InvalidAPIVersion:
            # The message quotes the text: a little of a long one.
            if len(text) > MAX_VERSION_LENGTH:
                text = text[:MAX_VERSION_LENGTH] + '...'
            raise self.malformed(version=text, header=self.legacy_header,
                                 min_version=str(self.min_version),
                                 max_version=str(self.max_version))
        if not self.min_version <= version <= self.max_version:
            raise self.unsupported(
                version=text, min_version=str(self.min_version),
                max_version=str(self.max_version))
        return version

    def response_headers(self, version):
        """Return the headers of an answer at ``version``.

        :param version: the APIVersion served.
        :returns: a list of ``(name, value)``.
        """
        return list(self._response_headers(type(version), version))

    def _response_headers_of(self, _version_type, version):
        return tuple(self.headers.on_success(self, version))

    def refusal_headers(self, requested):
        """Return the headers of the 406 refusing the version ``requested``.

        :param requested: the version text the client sent.
        :returns: a list of ``(name, value)``.
        """
        return self.headers.on_refusal(self, requested)


class VersionedRequest(object):
    """The version predicate of a request (mixed into
    ``nova_mini.api.wsgi.APIRequest``, whose ``api_version`` it reads).
    """

    def since(self, version):
        """Return whether the request's version is ``version`` or later.

        :param version: an APIVersion (a named one of the API's
            ``versions`` module), or None for the API's first version
            (version tables leave out what the first version had).
        :returns: a bool.
        """
        return version is None or self.api_version >= version


def versioned(min_version=None, max_version=None,
              refusal=exception.VersionNotFoundForAPIMethod):
    """Expose a handler only for requests within [min, max] (inclusive).

    Outside the range ``refusal`` is raised: by default the request is
    answered as if the resource did not exist (404), as Nova and Ironic do
    for most methods added later; Ironic answers some with 405 or 406.

    :param min_version: the first APIVersion (or its text) served, None
        for the API's.
    :param max_version: the last APIVersion (or its text) served, None
        for the API's.
    :param refusal: the exception class raised outside the range.
    :returns: the decorator; the handler it makes keeps the range in
        ``min_version`` and ``max_version``.
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
                raise refusal(version=str(version))
            return func(self, *args)
        wrapper.min_version = lower
        wrapper.max_version = upper
        return wrapper
    return decorator
