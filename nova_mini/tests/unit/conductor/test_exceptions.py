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

"""The conductors' errors answer as Ironic's: status, message, and a
Retry-After for the busy conductor.
"""

from nova_mini.api import faults
from nova_mini import exception_baremetal


def _error_response(status, message):
    return faults.ironic_fault(status, message)


def test_node_locked_is_409_in_ironic_words():
    exc = exception_baremetal.NodeLocked(node='n-1', host='c-1')
    assert faults.status_of(exc) == 409
    assert exc.format_message() == (
        'Node n-1 is locked by host c-1, please retry after the current '
        'operation is completed.')


def test_no_free_worker_is_503_with_retry_after():
    exc = exception_baremetal.NoFreeConductorWorker()
    assert faults.status_of(exc) == 503
    assert exc.format_message() == (
        'Requested action cannot be performed due to lack of free '
        'conductor workers.')
    response = faults.unavailable(exc, _error_response)
    assert response.status_int == 503
    assert response.headers['Retry-After'] == str(
        exception_baremetal.NO_FREE_WORKER_RETRY_AFTER)


def test_no_valid_conductor_is_404_in_ironic_words():
    # Ironic's NoValidHost is a NotFound...
    exc = exception_baremetal.NoValidConductor(driver='redfish', group='')
    assert faults.status_of(exc) == 404
    message = ('No valid host was found. Reason: No conductor service '
               'registered which supports driver redfish for conductor '
               'group "".')
    assert exc.format_message() == message
    # ... that node create and patch answer 400.
    exc = exception_baremetal.NoValidConductorRequested(driver='redfish',
                                                        group='')
    assert faults.status_of(exc) == 400
    assert exc.format_message() == message


def test_a_stopping_conductor_is_503():
    exc = exception_baremetal.ConductorShuttingDown(host='c-1',
                                                    retry_after=10)
    assert faults.status_of(exc) == 503
    assert 'c-1' in exc.format_message()
