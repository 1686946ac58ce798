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

"""A statement that fails names its SQL, never its parameters: they hold
what a row keeps (a node's driver_info with its BMC password, a server's
user_data), and the error's text is what oslo.db and the API log.
"""

import logging

from oslo_db import exception as db_exc
import pytest

from nova_mini.db import models

SECRET = 'ipmi-S3cr3t-pw'


def test_failed_statement_hides_parameters(engine, caplog):
    # A uniqueness race on a node's create, as two API workers may meet:
    # the error names the duplicate key, not the BMC password beside it.
    caplog.set_level(logging.DEBUG)
    nodes = models.Node.__table__
    row = {'uuid': '7d9a4d42-1b5e-4a0e-9e2f-0c1d2e3f4a5b',
           'driver': 'fake-hardware',
           'driver_info': {'ipmi_password': SECRET}}
    with engine.begin() as connection:
        connection.execute(nodes.insert().values(**row))
    with pytest.raises(db_exc.DBError) as raised:
        with engine.begin() as connection:
            connection.execute(nodes.insert().values(**row))
    assert 'INSERT INTO nodes' in str(raised.value)
    assert SECRET not in str(raised.value)
    assert SECRET not in caplog.text
