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

"""Services only tests run, beside what nova_mini_deploy deploys:

- ``postgresql``: the machine's PostgreSQL for tests (started if missing),
  temporary databases, and a private cluster a test may stop and restart;
- ``rabbitmq``: ``PrivateRabbitMQ``, a broker node of a test's own to stop
  and restart without disturbing the shared one;
- ``haproxy``: the HAProxy in front of two API and two metadata processes
  of the scale-out live test.

None of them is part of a deployment (the quick start, devstack and
systemd use the machine's own PostgreSQL, RabbitMQ and load balancer), so
they stay with the tests; they build on nova_mini_deploy.util.
"""
