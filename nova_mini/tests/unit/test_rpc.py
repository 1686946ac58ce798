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

"""nova_mini.rpc's defaults for oslo.messaging and the broker-failure
answers: what a send failure becomes and how the API shows it.
"""

import kombu.exceptions
from oslo_config import cfg
import oslo_messaging as messaging
import webob

from nova_mini.api import faults
from nova_mini import exception
from nova_mini import rpc


def test_reconnect_interval_bounded():
    conf = cfg.ConfigOpts()
    rpc.register_opts(conf)
    conf([])
    rabbit = conf.oslo_messaging_rabbit
    assert rabbit.rabbit_interval_max == rpc.RECONNECT_INTERVAL_MAX == 10
    # An operator's value still wins.
    conf.set_override('rabbit_interval_max', 3, 'oslo_messaging_rabbit')
    assert conf.oslo_messaging_rabbit.rabbit_interval_max == 3


def test_send_failures():
    for exc in (messaging.MessageDeliveryFailure('gave up'),
                kombu.exceptions.OperationalError('refused'),
                ConnectionRefusedError(111, 'refused')):
        assert isinstance(exc, rpc.SEND_FAILURES)
    assert not isinstance(ValueError(), rpc.SEND_FAILURES)
    assert rpc.AT_LEAST_ONCE.at_least_once


def _render(status, message):
    return webob.Response(status=status, body=message.encode())


def test_unavailable_answers_503_with_retry_after():
    for cls in (exception.BrokerUnavailable,
                exception.SchedulerNotListening):
        exc = cls(retry_after=rpc.BROKER_RETRY_AFTER)
        assert faults.status_of(exc) == 503
        response = faults.unavailable(exc, _render)
        assert response.status_int == 503
        assert response.headers['Retry-After'] == '10'
        assert 'retry the request in 10 seconds' in response.text
        assert 'Nothing was created' in response.text
