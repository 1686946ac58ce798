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

"""SchedulerRetries: how often an instance was scheduled already, and on
which nodes (RequestSpec's ``retry``, of this request only).
"""

from nova_mini.objects import base
from nova_mini.objects import fields


@base.NovaMiniObjectRegistry.register
class SchedulerRetries(base.NovaMiniObject):
    """How often an instance was scheduled already, and on which nodes."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'num_attempts': fields.IntegerField(),
        'nodes': fields.ListOfStringsField(),
    }

    @classmethod
    def from_dict(cls, retry):
        """Return the retries a legacy ``retry`` dict describes.

        :param retry: ``{'num_attempts', 'nodes'}``, or Nova's form with
            ``hosts``: ``[[host, node], ...]``.
        :returns: a SchedulerRetries.
        """
        nodes = retry.get('nodes')
        if nodes is None:
            # Nova's form: [[host, node], ...].
            nodes = [entry[-1] for entry in retry.get('hosts') or ()]
        return cls(num_attempts=retry.get('num_attempts', 0),
                   nodes=list(nodes))

    def to_dict(self):
        """Return the retries as a legacy dict (``num_attempts``, ``nodes``).
        """
        return {'num_attempts': self.num_attempts, 'nodes': list(self.nodes)}
