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

"""The quick start's sample resources (tools/stack.sh): Nova's classic
m1.* flavors, three fake-hardware nodes (bm-0, bm-1, bm-gpu-0 with trait
CUSTOM_GPU) made available, and the bm.* flavors that take a whole node.

Made through the compute and bare-metal APIs over HTTP with one admin
token (as redfish_nodes enrolls the redfish nodes), not thirty runs of the
openstack CLI of a few seconds each; the three nodes are managed and
provided at once. Idempotent: a flavor or node of the name that exists is
left as it is (a node's server too); the bm.* flavors' extra specs are set
on every run.
"""

from nova_mini_deploy import redfish_nodes
from nova_mini_deploy import util

# id, name, RAM (MB), disk (GB), VCPUs.
CLASSIC_FLAVORS = (('1', 'm1.tiny', 512, 1, 1),
                   ('2', 'm1.small', 2048, 20, 1),
                   ('3', 'm1.medium', 4096, 40, 2),
                   ('4', 'm1.large', 8192, 80, 4))
# name, capabilities, traits.
NODES = (('bm-0', 'boot_mode:bios', ()),
         ('bm-1', 'boot_mode:uefi', ()),
         ('bm-gpu-0', 'boot_mode:uefi', ('CUSTOM_GPU',)))
NODE_PROPERTIES = {'cpus': '8', 'memory_mb': '16384', 'local_gb': '100'}
# Each bm.* flavor takes one whole node of its resource class (and no
# VCPU, memory or disk of its own); bm.gpu only one with trait CUSTOM_GPU.
WHOLE_NODE = {'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
              'resources:DISK_GB': '0'}
NODE_FLAVORS = (
    ('bm.small', dict(WHOLE_NODE, **{'resources:CUSTOM_BAREMETAL': '1'})),
    ('bm.gpu', dict(WHOLE_NODE, **{'resources:CUSTOM_BAREMETAL': '1',
                                   'trait:CUSTOM_GPU': 'required'})),
)
REDFISH_FLAVOR = ('bm.redfish', dict(
    WHOLE_NODE, **{'resources:CUSTOM_BAREMETAL_REDFISH': '1'}))


class Compute(util.TokenAPI):
    """The flavors of a stack's compute API, with a token."""

    def __init__(self, url, token, timeout=30):
        super().__init__(url.rstrip('/'), token, timeout)

    def flavor_names(self):
        """The names of every flavor, public or not."""
        return {flavor['name'] for flavor in self.request(
            'GET', '/flavors', params={'is_public': 'None'}).json()['flavors']}

    def create_flavor(self, flavor_id, name, ram, disk, vcpus):
        self.request('POST', '/flavors', json={'flavor': {
            'id': flavor_id, 'name': name, 'ram': ram, 'disk': disk,
            'vcpus': vcpus, 'os-flavor-access:is_public': True}})

    def set_extra_specs(self, flavor_id, specs):
        self.request('POST', '/flavors/%s/os-extra_specs' % flavor_id,
                     json={'extra_specs': specs})


def _flavor(compute, existing, log, flavor_id, name, ram, disk, vcpus):
    if name in existing:
        log('flavor %s: exists' % name)
    else:
        compute.create_flavor(flavor_id, name, ram, disk, vcpus)
        existing.add(name)
        log('flavor %s: created' % name)


def _nodes(baremetal, log, timeout):
    """Create the missing NODES, manage and provide them all at once."""
    started = []
    for name, capabilities, traits in NODES:
        if baremetal.node(name) is not None:
            log('node %s: exists' % name)
            continue
        baremetal.request('POST', '/nodes', expect=(201,), json={
            'name': name, 'driver': 'fake-hardware',
            'resource_class': 'baremetal',
            'properties': dict(NODE_PROPERTIES, capabilities=capabilities)})
        for trait in traits:
            baremetal.request('PUT', '/nodes/%s/traits/%s' % (name, trait),
                              expect=(204,))
        baremetal.provision(name, 'manage')
        started.append(name)
    for name in started:
        baremetal.wait(name, 'manageable', timeout)
        baremetal.provision(name, 'provide')
    for name in started:
        baremetal.wait(name, 'available', timeout)
        log('node %s: created, available' % name)


def ensure(stack, log, timeout=120):
    """Make the sample flavors and nodes of ``stack`` (a
    nova_mini_deploy.stack.Stack whose daemons run) that are missing, the
    bm.redfish flavor too when it has redfish nodes; the names of its
    nodes.
    """
    token = stack.token('admin')
    compute = Compute(stack.nova.compute_url, token)
    baremetal = redfish_nodes.BareMetal(stack.nova.baremetal_url, token)
    existing = compute.flavor_names()
    for flavor in CLASSIC_FLAVORS:
        _flavor(compute, existing, log, *flavor)
    _nodes(baremetal, log, timeout)
    flavors = NODE_FLAVORS + ((REDFISH_FLAVOR,) if stack.redfish else ())
    for name, specs in flavors:
        _flavor(compute, existing, log, name, name, 16384, 100, 8)
        compute.set_extra_specs(name, specs)
    return sorted(node['name'] for node in baremetal.request(
        'GET', '/nodes', params={'fields': 'name'}).json()['nodes'])
