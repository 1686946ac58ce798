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

"""Fixtures of the API's functional tests."""

import logging

import pytest


@pytest.fixture
def no_traceback(caplog):
    """The test logged no traceback, no error and no "Unexpected error":
    hostile input is answered 4xx quietly. Use it with
    ``pytestmark = pytest.mark.usefixtures('no_traceback')``.
    """
    caplog.set_level(logging.INFO)
    yield
    bad = [record for record in caplog.records
           if record.exc_info or record.levelno >= logging.ERROR
           or 'Unexpected error' in record.getMessage()]
    assert bad == []
