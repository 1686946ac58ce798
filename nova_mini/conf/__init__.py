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

"""Configuration options of nova_mini, one module per option group.

``CONF`` is oslo.config's global object: oslo.messaging 18 registers its
tracing options only there, so every daemon uses it, as Nova does.
"""

from oslo_config import cfg

from nova_mini.conf import api
from nova_mini.conf import conductor
from nova_mini.conf import database
from nova_mini.conf import default
from nova_mini.conf import deploy
from nova_mini.conf import glance
from nova_mini.conf import ironic
from nova_mini.conf import metadata
from nova_mini.conf import quota
from nova_mini.conf import redfish
from nova_mini.conf import scheduler
from nova_mini.conf import sensor_data
from nova_mini.conf import upgrade_levels
from nova_mini.conf import vendordata_dynamic_auth
from nova_mini.conf import wsgi

CONF = cfg.CONF

# Every module listed here must provide register_opts(conf) and
# list_opts(); nova_mini.conf.opts checks that.
MODULES = (default, api, database, metadata, quota, scheduler,
           upgrade_levels, vendordata_dynamic_auth, glance, conductor, wsgi,
           redfish, deploy, ironic, sensor_data)

for _module in MODULES:
    _module.register_opts(CONF)
