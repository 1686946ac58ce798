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

"""The ``next`` link of a full page of key pairs or instance actions, as
Nova makes it: the query parameters sorted by name (the last value of a
repeated one), the marker in its place or else last.
"""

import collections
from urllib import parse

from nova_mini.api.compute import legacy_v2


def links(req, path, marker):
    """``[{'rel': 'next', 'href': ...}]`` for the page after ``marker``.

    :param req: the list request.
    :param path: the collection's path below the version root.
    :param marker: the last item's marker.
    """
    params = collections.OrderedDict(sorted(req.GET.items()))
    params['marker'] = marker
    return [{'rel': 'next',
             'href': '%s/%s?%s' % (legacy_v2.version_url(req), path,
                                   parse.urlencode(list(params.items())))}]
