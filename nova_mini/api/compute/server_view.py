"""How a server looks in compute API responses, by microversion."""

from nova_mini.api.compute import versions
from nova_mini.api import microversion
from nova_mini.policies import flavor_extra_specs as specs_policies
from nova_mini.policies import servers as policies

_EMBEDDED_FLAVOR = microversion.APIVersion(versions.EMBEDDED_FLAVOR)


def _iso(value):
    return value.strftime('%Y-%m-%dT%H:%M:%SZ') if value else None


class ServerView(object):
    """Renders servers for one request (its version, URLs and policy)."""

    def __init__(self, req):
        self.version = req.api_version
        self.root_url = req.application_url.rstrip('/')
        self._req = req

    def _links(self, kind, ident):
        return [
            {'rel': 'self',
             'href': '%s/v2.1/%s/%s' % (self.root_url, kind, ident)},
            {'rel': 'bookmark',
             'href': '%s/%s/%s' % (self.root_url, kind, ident)},
        ]

    def _flavor(self, instance):
        flavor = instance.flavor
        if self.version < _EMBEDDED_FLAVOR:
            return {'id': flavor.flavorid,
                    'links': self._links('flavors', flavor.flavorid)[1:]}
        # 2.47: the instance's own copy, whatever became of the flavor.
        body = {'vcpus': flavor.vcpus, 'ram': flavor.memory_mb,
                'disk': flavor.root_gb, 'ephemeral': flavor.ephemeral_gb,
                'swap': flavor.swap, 'original_name': flavor.name}
        if self._req.ctxt.can(specs_policies.INDEX, fatal=False):
            body['extra_specs'] = dict(flavor.extra_specs)
        return body

    def basic(self, instance):
        return {'id': instance.uuid, 'name': instance.name,
                'links': self._links('servers', instance.uuid)}

    def detail(self, instance):
        body = self.basic(instance)
        body.update({
            'status': instance.status,
            'tenant_id': instance.project_id,
            'user_id': instance.user_id,
            'flavor': self._flavor(instance),
            'image': ({'id': instance.image_ref,
                       'links': self._links('images', instance.image_ref)[1:]}
                      if instance.image_ref else ''),
            'created': _iso(instance.created_at),
            'updated': _iso(instance.updated_at),
            'addresses': {},
            'metadata': {},
            'hostId': '',
            'OS-DCF:diskConfig': 'MANUAL',
        })
        if instance.fault and instance.status == 'ERROR':
            fault = instance.fault
            body['fault'] = {'code': fault.get('code', 500),
                             'message': fault.get('message'),
                             'created': fault.get('created')}
            if fault.get('details') and self._req.ctxt.is_admin:
                body['fault']['details'] = fault['details']
        if self._req.ctxt.can(policies.EXTENDED_ATTRIBUTES, fatal=False):
            body['OS-EXT-SRV-ATTR:hypervisor_hostname'] = instance.node_uuid
        return body

    def show(self, instance):
        return {'server': self.detail(instance)}

    def created(self, instance, admin_pass):
        return {'server': {
            'id': instance.uuid,
            'links': self._links('servers', instance.uuid),
            'OS-DCF:diskConfig': 'MANUAL',
            'security_groups': [{'name': 'default'}],
            'adminPass': admin_pass,
        }}

    def index(self, instances, detail):
        render = self.detail if detail else self.basic
        return {'servers': [render(i) for i in instances]}
