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

"""POST /events logs each event it accepts, and nothing else happens (the
refusals are in gabbits/baremetal-events.yaml).
"""

import logging

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.54'}
EVENT = {'event': 'network.bind_port',
         'port_id': '0c4b5f0e-1f6e-4d3c-9a7b-2e5d8c1f4a36',
         'mac_address': '52:54:00:00:00:0e', 'status': 'ACTIVE',
         'binding:vnic_type': 'baremetal'}


def test_each_event_is_logged(api, caplog):
    unbind = dict(EVENT, event='network.unbind_port', status='DOWN')
    with caplog.at_level(logging.DEBUG,
                         logger='nova_mini.api.baremetal.events'):
        response = api.post_json('/baremetal/v1/events',
                                 {'events': [EVENT, unbind]},
                                 headers=HEADERS)
    assert response.status_int == 204
    assert response.body == b''
    logged = [record.getMessage() for record in caplog.records
              if record.name == 'nova_mini.api.baremetal.events']
    assert logged == ['Received external event: %s' % EVENT,
                      'Received external event: %s' % unbind]


def test_a_refused_event_list_logs_nothing(api, caplog):
    with caplog.at_level(logging.DEBUG,
                         logger='nova_mini.api.baremetal.events'):
        response = api.post_json('/baremetal/v1/events', {'events': [
            EVENT, dict(EVENT, event='network.create_port')]},
            headers=HEADERS, expect_errors=True)
    assert response.status_int == 400
    assert not [record for record in caplog.records
                if record.name == 'nova_mini.api.baremetal.events']
