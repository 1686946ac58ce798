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

"""How a flavor looks in compute API responses, by microversion."""


from nova_mini.api.compute import legacy_v2
from nova_mini.api.compute import versions
from nova_mini.api import pagination
from nova_mini.policies.compute import flavor_extra_specs as specs_policies
from nova_mini import policy


class FlavorView(object):
    """Render flavors for one request (its version, URLs and policy).

    :param req: the request being served.
    """

    def __init__(self, req):
        # application_url is the API root (…/compute); links add v2.1
        # (v2 below the compatibility root).
        self.root_url = req.application_url.rstrip('/')
        self.version_url = legacy_v2.version_url(req)
        self.req = req
        self._show_specs = None
        # Decided once per request, not per flavor of a list.
        self._with_description = self.req.since(versions.FLAVOR_DESCRIPTION)
        self._zero_swap_shown = self.req.since(versions.STRICT_VALIDATION)
        self._with_specs = (
            self.req.since(versions.FLAVOR_EXTRA_SPECS_IN_BODY))

    def _links(self, flavor):
        return [
            {'rel': 'self',
             'href': '%s/flavors/%s' % (self.version_url, flavor.flavorid)},
            {'rel': 'bookmark',
             'href': '%s/flavors/%s' % (self.root_url, flavor.flavorid)},
        ]

    def _may_show_specs(self):
        if self._show_specs is None:
            context = self.req.ctxt
            self._show_specs = context.can(
                specs_policies.INDEX, policy.own_target(context),
                fatal=False)
        return self._show_specs

    def basic(self, flavor):
        """Return the body of ``flavor`` in a brief list."""
        body = {'id': flavor.flavorid, 'name': flavor.name,
                'links': self._links(flavor)}
        if self._with_description:
            body['description'] = flavor.description
        return body

    def detail(self, flavor):
        """Return the body of ``flavor`` in a detailed list or show."""
        body = {
            'id': flavor.flavorid,
            'name': flavor.name,
            'ram': flavor.memory_mb,
            'disk': flavor.root_gb,
            # Until 2.75 a zero swap was shown as an empty string.
            'swap': flavor.swap if (flavor.swap or self._zero_swap_shown)
            else '',
            'OS-FLV-EXT-DATA:ephemeral': flavor.ephemeral_gb,
            'OS-FLV-DISABLED:disabled': flavor.disabled,
            'vcpus': flavor.vcpus,
            'os-flavor-access:is_public': flavor.is_public,
            'rxtx_factor': flavor.rxtx_factor,
            'links': self._links(flavor),
        }
        if self._with_description:
            body['description'] = flavor.description
        if self._with_specs and self._may_show_specs():
            body['extra_specs'] = flavor.extra_specs
        return body

    def show(self, flavor):
        """Return the answer of a show (or create, or update) of a flavor.

        :param flavor: the Flavor.
        :returns: ``{'flavor': ...}``.
        """
        return {'flavor': self.detail(flavor)}

    def index(self, flavors, detail, next_marker_wanted, link_params=None):
        """Return a list body, with a next link when the page is full.

        :param flavors: the flavors of the page.
        :param detail: whether the list is /flavors/detail.
        :param next_marker_wanted: whether a next link is added (the page
            is full).
        :param link_params: the query parameters the next link repeats
            (all if None; the ones a version ignores are left out).
        :returns: ``{'flavors': [...]}`` and maybe ``flavors_links``.
        """
        render = self.detail if detail else self.basic
        body = {'flavors': [render(f) for f in flavors]}
        if next_marker_wanted and flavors:
            path = 'flavors/detail' if detail else 'flavors'
            body['flavors_links'] = pagination.nova_next(
                self.req, path, flavors[-1].flavorid, link_params)
        return body
