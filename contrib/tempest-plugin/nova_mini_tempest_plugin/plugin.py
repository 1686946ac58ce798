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

"""The entry point Tempest loads (``tempest.test_plugins``)."""

import os

from tempest import config
from tempest.test_discover import plugins

from nova_mini_tempest_plugin import config as plugin_config

_OPTS = [
    (config.service_available_group, [plugin_config.service_option]),
    (plugin_config.group, plugin_config.options),
]


class NovaMiniTempestPlugin(plugins.TempestPlugin):

    def load_tests(self):
        package = os.path.dirname(os.path.abspath(__file__))
        top = os.path.dirname(package)
        return os.path.join(package, 'tests'), top

    def register_opts(self, conf):
        for group, options in _OPTS:
            config.register_opt_group(conf, group, options)

    def get_opt_lists(self):
        return [(group.name, options) for group, options in _OPTS]

    def get_service_clients(self):
        compute = {
            'name': 'nova_mini_compute',
            'service_version': 'nova_mini.compute',
            'module_path': 'nova_mini_tempest_plugin.services.compute_client',
            'client_names': ['NovaMiniComputeClient'],
        }
        compute.update(config.service_client_config('compute'))
        baremetal = {
            'name': 'nova_mini_baremetal',
            'service_version': 'nova_mini.baremetal',
            'module_path':
                'nova_mini_tempest_plugin.services.baremetal_client',
            'client_names': ['NovaMiniBaremetalClient'],
        }
        # Timeouts, region and endpoint type as compute's; the catalog
        # type is Ironic's.
        baremetal.update(config.service_client_config('compute'))
        baremetal['service'] = 'baremetal'
        return [compute, baremetal]
