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

"""How chassis and ports look in bare-metal API responses: the fields of
each version, ``fields=`` selection, links and Ironic's paged lists.
"""

from nova_mini.api.baremetal import node_view
from nova_mini.api import pagination
from nova_mini import exception


class ResourceView(object):
    """Render one kind of resource for one request.

    Subclasses set ``COLLECTION`` (the list key and path), ``FIELDS``
    (in Ironic's order), ``BRIEF_FIELDS``, ``FIELD_VERSIONS`` and
    ``value()`` where a field is not the object's attribute.

    :param req: the request being served.
    """

    COLLECTION = None
    FIELDS = ()
    BRIEF_FIELDS = ()
    FIELD_VERSIONS = {}

    def __init__(self, req):
        self.version = req.api_version
        self.context = req.ctxt
        self._links = node_view.NodeView(req)

    def allowed(self, name):
        """Return whether the field ``name`` is shown at this version."""
        needed = self.FIELD_VERSIONS.get(name)
        return needed is None or self.version >= needed

    def check_fields(self, fields):
        """Refuse unknown fields (400) and fields of later versions (406).
        """
        unknown = sorted(set(fields) - set(self.FIELDS))
        if unknown:
            raise exception.Invalid('Field(s) "%s" are not valid'
                                    % ', '.join(unknown))
        for name in fields:
            if not self.allowed(name):
                raise exception.NotAcceptable(version=str(self.version))

    def link(self, path, bookmark=False):
        """Return the URL of ``path`` below the API root (see NodeView)."""
        return self._links.link(path, bookmark)

    def links(self, path):
        """Return the self and bookmark links of ``path``."""
        return [{'href': self.link(path), 'rel': 'self'},
                {'href': self.link(path, bookmark=True), 'rel': 'bookmark'}]

    def value(self, item, name):
        """Return the field ``name`` of ``item`` as shown."""
        value = getattr(item, name)
        if name in ('created_at', 'updated_at'):
            return node_view._timestamp(value)
        return value

    def extra_links(self, item):
        """Return the sub-resource links of a full body (none here)."""
        return {}

    def render(self, item, fields=None):
        """Return a body with its links; ``fields`` None: all fields of
        the version and the sub-resource links.
        """
        shown = fields or [name for name in self.FIELDS if self.allowed(name)]
        body = {name: self.value(item, name) for name in shown}
        body['links'] = self.links('%s/%s' % (self.COLLECTION, item.uuid))
        if fields is None:
            body.update(self.extra_links(item))
        return body

    def collection(self, items, limit, path, fields=None, detail=False,
                   query=None):
        """Return a list body, with Ironic's ``next`` link when full.

        :param items: the objects of the page.
        :param limit: the page size asked for.
        :param path: the list's path below ``/v1``.
        :param fields: the fields shown (None: the list's default).
        :param detail: whether every field is shown.
        :param query: ``[(name, value)]`` the next link repeats.
        :returns: ``{COLLECTION: [...]}`` and maybe ``next``.
        """
        if detail:
            bodies = [self.render(item) for item in items]
        else:
            bodies = [self.render(item, fields or [
                name for name in self.BRIEF_FIELDS if self.allowed(name)])
                for item in items]
        body = {self.COLLECTION: bodies}
        if items and limit and len(items) == limit:
            body['next'] = pagination.ironic_next(
                self.link(path), query or [], limit, items[-1].uuid, fields)
        return body
