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

"""Start-up checks shared by the console scripts.

Each ends the program with one error line when the service it needs is not
usable; the check happens outside the ``except`` block so that the log line
carries no traceback.
"""

from nova_mini.db import migration
from nova_mini import exception
from nova_mini import rpc
from nova_mini import service


def require_database(conf):
    problem = None
    try:
        migration.check_ready(conf.database.connection)
    except exception.DatabaseNotReady as exc:
        problem = exc.format_message()
    if problem:
        service.fail('%s', problem)


def require_broker(conf):
    problem = None
    try:
        rpc.check_broker(conf)
    except exception.MessagingUnreachable as exc:
        problem = exc.format_message()
    if problem:
        service.fail('%s', problem)
