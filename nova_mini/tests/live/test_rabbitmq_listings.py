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

"""The broker's counts that the fault tests wait on (a cast taken by a
scheduler, a frozen scheduler holding its share): RabbitMQ.queue_messages
and unacknowledged_by_client on the machine's RabbitMQ, with a client
that takes messages without acknowledging them.
"""

import os
import uuid

import kombu
import pytest

from nova_mini_deploy import rabbitmq
from nova_mini_deploy import util

pytestmark = pytest.mark.live


def test_ready_and_unacknowledged_messages_by_client():
    rabbit = rabbitmq.RabbitMQ()
    rabbit.ensure()
    vhost = 'nova_mini_listings_%s' % uuid.uuid4().hex[:8]
    client = 'listings-test:%d:%s' % (os.getpid(), uuid.uuid4())
    with rabbit.virtual_hosts(vhost) as (url,):
        with kombu.Connection(
                url.replace('rabbit://', 'amqp://', 1), connect_timeout=10,
                transport_options={'confirm_publish': True,
                                   'client_properties': {
                                       'connection_name': client}}
        ) as connection:
            exchange = kombu.Exchange('listings', type='topic',
                                      durable=False)
            queue = kombu.Queue('work', exchange, routing_key='work',
                                durable=False)(connection.channel())
            queue.declare()
            producer = kombu.Producer(connection.channel(), exchange)
            for index in range(3):
                producer.publish({'index': index}, routing_key='work')
            assert rabbit.queue_messages(vhost) == {'work': (3, 0)}
            assert rabbit.unacknowledged_by_client(vhost) == {client: 0}
            taken = [queue.get(no_ack=False) for _i in range(2)]
            assert rabbit.queue_messages(vhost) == {'work': (1, 2)}
            assert rabbit.unacknowledged_by_client(vhost) == {client: 2}
            # (an acknowledgement and a close have no answer: the broker
            # counts them a moment later)
            taken[0].ack()
            util.wait_until(lambda: rabbit.queue_messages(vhost) == {
                'work': (1, 1)}, 30, 'the acknowledgement counted')
            assert rabbit.unacknowledged_by_client(vhost) == {client: 1}
        # A client gone: what it held is ready again.
        util.wait_until(lambda: rabbit.queue_messages(vhost) == {
            'work': (2, 0)} and rabbit.unacknowledged_by_client(vhost) == {},
            30, 'the client gone, the message it held ready')
