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

"""WSGI entry point of the compute and bare-metal APIs:
``nova_mini.wsgi.api:application``.

Under uwsgi or mod_wsgi no master process of nova_mini's runs: each
process serving the API keeps its host alive in the bare-metal
conductors registry (nova_mini.conductor_heartbeat) from a daemon thread.
None marks the host offline when it exits (others may still serve): the
host stops being alive once the last one stopped refreshing it, after
``[conductor] heartbeat_timeout``.
"""

from nova_mini.api import app as _app
from nova_mini import conductor_heartbeat
from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini import wsgi


def _build_app():
    db_api.configure(conf.CONF)
    application = _app.build_app()
    conductor_heartbeat.Heartbeat(
        conf.CONF.database.connection, conf.CONF.host,
        conf.CONF.conductor.heartbeat_interval,
        mark_offline=False).start(required=False)
    return application


def init_application():
    return wsgi.init(_build_app)


__getattr__ = wsgi.lazy_application(_build_app)
