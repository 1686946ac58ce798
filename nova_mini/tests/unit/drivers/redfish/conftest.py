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

"""Fixtures of the redfish driver's unit tests: a FakeBMC serving the
recorded documents, a node pointing at it, and CONF with short waits."""

import types

import pytest

from nova_mini.drivers.redfish import connection
from nova_mini.tests.unit.drivers.redfish import fake_bmc

NODE_UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


@pytest.fixture
def redfish_conf(conf):
    # The shortest waits the options allow: a retry waits 1 s.
    conf.config(group='redfish', connection_attempts=3,
                connection_retry_interval=1, connect_timeout=2,
                read_timeout=5)
    conf.config(group='conductor', power_state_change_timeout=4,
                soft_power_off_timeout=4)
    connection.clear_cache()
    yield conf
    connection.clear_cache()


@pytest.fixture
def bmc_factory(redfish_conf):
    started = []

    def factory(**kwargs):
        bmc = fake_bmc.BMCProcess(**kwargs)
        started.append(bmc)
        return bmc

    yield factory
    for bmc in started:
        bmc.stop()


@pytest.fixture
def bmc(bmc_factory):
    return bmc_factory()


def make_node(bmc=None, **driver_info):
    info = {}
    if bmc is not None:
        info = {'redfish_address': bmc.address,
                'redfish_username': bmc.username,
                'redfish_password': bmc.password,
                'redfish_auth_type': 'basic'}
    info.update(driver_info)
    info = {k: v for k, v in info.items() if v is not None}
    return types.SimpleNamespace(
        uuid=NODE_UUID, driver_info=info,
        instance_info={'boot_iso': 'http://192.0.2.1/boot.iso'},
        driver_internal_info={})


@pytest.fixture
def node(bmc):
    return make_node(bmc)
