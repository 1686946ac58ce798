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

"""HTTP caching rules (RFC 9111) for the replies of vendordata targets.

nova_mini is a private cache here: each entry belongs to one instance and
one target, so ``private`` replies are stored and ``s-maxage`` (meant for
shared caches) is ignored. A reply is reused while fresh, from
``Cache-Control: max-age`` or else ``Expires`` minus ``Date``, less its
``Age``; ``no-store`` is never stored; ``no-cache`` is stored but
revalidated before every use. A stale entry with an ``ETag`` or a
``Last-Modified`` is revalidated with ``If-None-Match`` /
``If-Modified-Since``, and a 304 reuses its body with the lifetime the 304's
headers give. Every lifetime is capped by ``[api]
vendordata_dynamic_cache_max_age``.

The functions here are pure: entries are JSON-able dicts, times are POSIX
timestamps passed in, so they are tested without a clock or a server.
"""

import email.utils

# The reply headers an entry keeps: those that decide its freshness and
# those that revalidate it (a 304 updates them, RFC 9111 section 4.3.4).
KEPT_HEADERS = ('Cache-Control', 'Expires', 'Date', 'Age', 'ETag',
                'Last-Modified', 'Vary')


def parse_cache_control(value):
    """``'max-age=60, private'`` -> ``{'max-age': '60', 'private': None}``.

    Directive names are case-insensitive; quoted values are unquoted. A
    directive given twice keeps its first value (RFC 9111 section 4.2.1:
    conflicting values make the reply stale anyway through max-age=0).
    """
    directives = {}
    for part in (value or '').split(','):
        name, sep, argument = part.strip().partition('=')
        name = name.strip().lower()
        if not name:
            continue
        argument = argument.strip()
        if len(argument) >= 2 and argument[0] == argument[-1] == '"':
            argument = argument[1:-1]
        directives.setdefault(name, argument if sep else None)
    return directives


def parse_http_date(value):
    """POSIX time of an HTTP date, or None when it is not one."""
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _seconds(value):
    """A delta-seconds value; None when invalid."""
    try:
        seconds = int(value)
    except (TypeError, ValueError):
        return None
    return seconds if seconds >= 0 else None


def freshness(headers, now, max_age_cap):
    """How long a reply with these headers may be reused, in seconds.

    None: it must not be stored at all (``no-store``, ``Vary: *``).
    0: it may be stored but must be revalidated before any use.
    """
    directives = parse_cache_control(headers.get('Cache-Control'))
    if 'no-store' in directives or headers.get('Vary', '').strip() == '*':
        return None
    if 'no-cache' in directives:
        # NOTE: "no-cache=field" only restricts those fields in a shared
        # proxy; for a JSON body handed on whole, revalidate all of it.
        lifetime = 0
    elif 'max-age' in directives:
        # An invalid max-age makes the reply stale (RFC 9111 4.2.1).
        lifetime = _seconds(directives['max-age']) or 0
    elif 'Expires' in headers:
        expires = parse_http_date(headers['Expires'])
        date = parse_http_date(headers.get('Date'))
        # An invalid Expires ("0", "-1") means already expired.
        lifetime = 0 if expires is None else expires - (
            now if date is None else date)
    else:
        # No explicit freshness: no heuristic lifetime for a POST reply,
        # but its validators may still save sending the body again.
        lifetime = 0
    lifetime -= _seconds(headers.get('Age')) or 0
    return max(0, min(lifetime, max_age_cap))


def _kept(headers):
    return {name: headers[name] for name in KEPT_HEADERS if name in headers}


def make_entry(value, headers, now, max_age_cap):
    """Return the cache entry of a 2xx reply whose body is ``value``.

    :param value: the decoded body.
    :param headers: the reply's headers.
    :param now: the time (seconds since the epoch).
    :param max_age_cap: the longest lifetime kept (0: nothing is kept).
    :returns: ``{'value', 'headers', 'fresh_until'}``, or None when it
        must not be stored or would be of no use (stale with no
        validator).
    """
    if max_age_cap <= 0:
        return None
    lifetime = freshness(headers, now, max_age_cap)
    if lifetime is None:
        return None
    kept = _kept(headers)
    if lifetime <= 0 and 'ETag' not in kept and 'Last-Modified' not in kept:
        return None
    return {'value': value, 'headers': kept, 'fresh_until': now + lifetime}


def revalidated_entry(entry, headers, now, max_age_cap):
    """Return the entry after a 304: its body, the stored headers updated
    with the 304's, and the lifetime those give.

    :param entry: the stored entry.
    :param headers: the 304's headers.
    :param now: the time (seconds since the epoch).
    :param max_age_cap: as for make_entry.
    :returns: the new entry, or None if it must be dropped.
    """
    merged = dict(entry['headers'])
    merged.update(_kept(headers))
    if 'Date' not in headers:
        # The stored Date would count the old entry's age as the new one's.
        merged.pop('Date', None)
    if 'Age' not in headers:
        merged.pop('Age', None)
    return make_entry(entry['value'], merged, now, max_age_cap)


def is_fresh(entry, now):
    """Return whether ``entry`` (None: no entry) is fresh at ``now``."""
    return entry is not None and entry['fresh_until'] > now


def conditional_headers(entry):
    """Return the request headers that revalidate a stale entry.

    :param entry: the stored entry (None: no entry).
    :returns: ``If-None-Match`` and ``If-Modified-Since`` as the entry
        allows (empty without one).
    """
    if entry is None:
        return {}
    headers = {}
    if 'ETag' in entry['headers']:
        headers['If-None-Match'] = entry['headers']['ETag']
    if 'Last-Modified' in entry['headers']:
        headers['If-Modified-Since'] = entry['headers']['Last-Modified']
    return headers
