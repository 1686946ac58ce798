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

"""Deploying nova_mini on one host: RabbitMQ (a virtual host and user of
the stack's own), Keystone and Glance from PyPI (each in its own venv,
served by gunicorn), the users, projects and catalog nova_mini needs, and
nova_mini's daemons with their config files. Every wait is bounded.

The quick start (tools/stack.sh, through ``python -m nova_mini_deploy``),
the CI without devstack (tools/run-tests.sh) and the live tests all deploy
with this package, a distribution of its own (contrib/nova-mini-deploy),
as devstack is to Nova: the daemons never import it, and it imports
nothing of nova_mini (it runs the daemons' console scripts of its venv),
nor pytest.

Modules: ``stack`` (the whole stack of one state directory), ``keystone``,
``glance`` (with ``service``, their gunicorn process), ``rabbitmq``,
``nova`` (the daemons and their config), ``vendordata_sample`` (the sample
DynamicJSON service the quick start runs beside the metadata service),
``redfish_emulator`` (sushy-tools' Redfish emulator with fake systems, for
the redfish hardware type), ``venvs`` (the services' venvs), ``util``
(processes, ports, waiting).

What only tests need stays in nova_mini.tests.harness: a PostgreSQL
cluster and a RabbitMQ node of a test's own (to stop and restart under
load) and the HAProxy of the scale-out test.
"""

from nova_mini_deploy.stack import Stack  # noqa: F401
from nova_mini_deploy.util import ServiceError  # noqa: F401
