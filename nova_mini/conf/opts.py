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

"""Entry points for oslo-config-generator.

Every module in nova_mini.conf.MODULES must define register_opts and
list_opts; a module that forgets one fails here, loudly, instead of
silently missing from the sample config.
"""

import collections

from oslo_log import log as logging
from oslo_middleware import cors

from nova_mini import conf


def list_opts():
    by_group = collections.defaultdict(list)
    for module in conf.MODULES:
        for attr in ('register_opts', 'list_opts'):
            if not callable(getattr(module, attr, None)):
                raise RuntimeError('%s has no %s()' % (module.__name__, attr))
        for group, opts in module.list_opts().items():
            by_group[group].extend(opts)
    return sorted(by_group.items(), key=lambda item: str(item[0]))


def set_defaults():
    """Defaults nova_mini prefers over the libraries' own."""
    logging.set_defaults(default_log_levels=logging.get_default_log_levels() + [
        'keystonemiddleware=INFO', 'stevedore=INFO', 'kombu=WARN',
        'amqp=WARN', 'alembic=WARN'])
    cors.set_defaults(
        allow_headers=['X-Auth-Token', 'X-OpenStack-Request-ID',
                       'X-OpenStack-Nova-API-Version',
                       'X-OpenStack-Ironic-API-Version',
                       'OpenStack-API-Version'],
        expose_headers=['X-OpenStack-Request-ID',
                        'X-OpenStack-Nova-API-Version',
                        'X-OpenStack-Ironic-API-Version',
                        'OpenStack-API-Version'],
        allow_methods=['GET', 'PUT', 'POST', 'DELETE', 'PATCH'])
