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

"""The count after a create, as Nova rechecks its quotas.

A create counts what is committed, inserts and commits, then counts again:
under READ COMMITTED a create racing it is only seen once committed, so
the second count is what keeps concurrent creates within the quota. One
the second count finds over the quota is deleted again and refused.
"""

from oslo_log import log as logging

from nova_mini.db import retry as db_retry

LOG = logging.getLogger(__name__)


def recheck(check, undo, over_quota, created):
    """Count again after a create; undo it if over the quota.

    :param check: a callable that counts again and raises ``over_quota``
        when the quota is exceeded.
    :param undo: a callable that deletes what was created.
    :param over_quota: the exception class of an exceeded quota.
    :param created: what was created, for the log.
    :raises over_quota: over the quota (the create is undone).
    """
    try:
        check()
    except over_quota:
        undo()
        raise
    except db_retry.UNAVAILABLE as exc:
        # The create is committed, and the answer must say so (an error
        # would have the client create it again). Only a create racing
        # this one, during the outage, could have gone past the quota.
        LOG.warning('%s is stored, but the database could not be reached '
                    'to count it against its quota again (%s): kept',
                    created, exc)
