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

"""Paging of list requests, in both APIs: the ``limit`` query parameter,
and the link to the next page of a full one (Nova's ``*_links`` and
Ironic's ``next``).
"""

import collections
from urllib import parse

from nova_mini.api.compute import legacy_v2
from nova_mini import conf
from nova_mini import exception

CONF = conf.CONF


def limit(req, minimum=0, below_minimum='limit param must be positive'):
    """Return the page size a list request asks for with ``limit``.

    No limit is ``[api] max_limit``, and a larger one is cut to it. The
    defaults are Nova's: 0 is an empty page. Ironic refuses 0 as well,
    in its own words.

    :param req: the request.
    :param minimum: the smallest limit taken.
    :param below_minimum: the message of the 400 for a smaller one.
    :returns: the number of items of the page.
    :raises Invalid: the limit is not an integer, or below ``minimum``.
    """
    text = req.GET.get('limit')
    if text is None:
        return CONF.api.max_limit
    try:
        value = int(text)
    except ValueError:
        raise exception.Invalid('limit param must be an integer')
    if value < minimum:
        raise exception.Invalid(below_minimum)
    return min(value, CONF.api.max_limit)


def ironic_limit(req):
    """Return the page size of a bare-metal list: ``limit``, Ironic's way.

    :param req: the request.
    :returns: the limit, at most ``[api] max_limit`` (that if none).
    :raises Invalid: the limit is not positive.
    """
    return limit(req, minimum=1, below_minimum='Limit must be positive')


def ironic_next(url, query, limit, marker, fields=None):
    """Return the ``next`` link of a full page of a bare-metal list, as
    Ironic's reads: the query repeated, then ``limit`` and ``marker``.

    Every value is percent-encoded (Ironic pastes them as they are: a
    filter holding ``&``, ``#``, a space or a non-ASCII character then
    asks another page than the one it named); commas stay, as in
    ``fields``.

    :param url: the list's URL.
    :param query: ``[(name, value)]`` the link repeats.
    :param limit: the page size.
    :param marker: the last item's marker.
    :param fields: the fields shown, if the request named them.
    :returns: the URL of the next page.
    """
    params = list(query)
    if fields:
        params.append(('fields', ','.join(fields)))
    params += [('limit', limit), ('marker', marker)]
    return '%s?%s' % (url, parse.urlencode(params, safe=','))


def nova_next(req, path, marker, names=None, every_value=False):
    """Return the ``*_links`` of a full page of a compute list, as Nova
    makes them: the query parameters sorted by name, the last value of a
    repeated one, and the marker in its place or else last.

    :param req: the list request.
    :param path: the collection's path below the version root.
    :param marker: the last item's marker.
    :param names: the query parameters the link repeats (all if None).
    :param every_value: keep every value of a repeated parameter, in its
        order (the server lists: the next page keeps all the sort keys and
        statuses of this one; Nova keeps the last).
    :returns: ``[{'rel': 'next', 'href': ...}]``.
    """
    params = [(name, value) for name, value in req.GET.items()
              if names is None or name in names]
    if every_value:
        params.sort(key=lambda param: param[0])
    else:
        params = list(collections.OrderedDict(sorted(params)).items())
    given = [name for name, _value in params]
    if 'marker' in given:
        place = given.index('marker')
        params = [param for param in params if param[0] != 'marker']
        params.insert(place, ('marker', marker))
    else:
        params.append(('marker', marker))
    return [{'rel': 'next',
             'href': '%s/%s?%s' % (legacy_v2.version_url(req), path,
                                   parse.urlencode(params))}]
