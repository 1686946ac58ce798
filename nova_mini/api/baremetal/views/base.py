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

"""What every bare-metal view shares: the fields of each version,
``fields=`` checks, self and bookmark links, and Ironic's lists with
their ``next`` link.
"""

from nova_mini.api.baremetal import versions
from nova_mini.api import pagination
from nova_mini import exception


def timestamp(value):
    """Return a time as Ironic shows it: ISO 8601 with its offset (naive
    times are UTC), or None.
    """
    if value is None:
        return None
    if value.tzinfo is None:
        return value.isoformat() + '+00:00'
    return value.isoformat()


class ResourceView(object):
    """Render one kind of resource for one request.

    Subclasses set ``COLLECTION`` (the list key and path), ``FIELDS``
    (in Ironic's order), ``BRIEF_FIELDS``, ``FIELD_VERSIONS`` (the
    fields that came after 1.1, and the version of each) and override
    ``value()`` where a field is not the object's attribute, and
    ``extra_links()`` for the sub-resource links of a full body.

    :param req: the request being served.
    """

    COLLECTION = None
    FIELDS = ()
    BRIEF_FIELDS = ()
    FIELD_VERSIONS = {}

    def __init__(self, req):
        self.req = req
        self.context = req.ctxt
        # application_url is the API root (…/baremetal).
        self.root_url = req.application_url.rstrip('/')

    def allowed(self, name):
        """Return whether the field ``name`` is shown at this version."""
        return self.req.since(self.FIELD_VERSIONS.get(name))

    def check_fields(self, fields):
        """Refuse unknown fields and fields of later versions.

        :param fields: the field names a request selects.
        :raises nova_mini.exception.Invalid: an unknown field (400).
        :raises nova_mini.exception.NotAcceptable: a field of a later
            version (406).
        """
        unknown = sorted(set(fields) - set(self.FIELDS))
        if unknown:
            raise exception.Invalid('Field(s) "%s" are not valid'
                                    % ', '.join(unknown))
        for name in fields:
            if not self.allowed(name):
                raise versions.not_acceptable(self.req)

    def link(self, path, bookmark=False):
        """Return the URL of ``path`` below the API root.

        :param path: the path below ``/v1`` (``nodes/<uuid>``, ...).
        :param bookmark: whether to leave ``/v1`` out, as bookmark links
            do.
        :returns: the URL.
        """
        if bookmark:
            return '%s/%s' % (self.root_url, path)
        return '%s/v1/%s' % (self.root_url, path)

    def links(self, path):
        """Return the self and bookmark links of ``path``."""
        return [{'href': self.link(path), 'rel': 'self'},
                {'href': self.link(path, bookmark=True), 'rel': 'bookmark'}]

    def value(self, item, name):
        """Return the field ``name`` of ``item`` as shown."""
        value = getattr(item, name)
        if name in ('created_at', 'updated_at'):
            return timestamp(value)
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

    def brief(self, item):
        """Return the body of ``item`` in a brief list."""
        return self.render(item, [name for name in self.BRIEF_FIELDS
                                  if self.allowed(name)])

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
        elif fields:
            bodies = [self.render(item, fields) for item in items]
        else:
            bodies = [self.brief(item) for item in items]
        body = {self.COLLECTION: bodies}
        if items and limit and len(items) == limit:
            body['next'] = pagination.ironic_next(
                self.link(path), query or [], limit, items[-1].uuid, fields)
        return body
