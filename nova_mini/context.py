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

"""The request context every API call and RPC message carries."""

from oslo_context import context
from oslo_db.sqlalchemy import enginefacade


@enginefacade.transaction_context_provider
class RequestContext(context.RequestContext):
    """oslo.context's context, able to open database transactions.

    ``is_admin`` is decided once, from policy's ``context_is_admin`` rule,
    when the API builds the context (nova_mini.api.auth).
    """

    def can(self, action, target=None, fatal=True):
        """Return whether policy allows ``action`` for this context.

        :param action: a registered rule name.
        :param target: the object's attributes (``policy.own_target`` for
            the caller's own); None is nobody's.
        :param fatal: raise instead of answering False.
        :returns: True, or False if not allowed and not ``fatal``.
        :raises nova_mini.exception.PolicyNotAuthorized: not allowed, and
            ``fatal``.
        """
        from nova_mini import exception
        from nova_mini import policy
        try:
            return policy.authorize(self, action, target)
        except exception.PolicyNotAuthorized:
            if fatal:
                raise
            return False

    def to_dict(self):
        """Return the context as a dict for RPC, ``is_admin`` included."""
        values = super().to_dict()
        values['is_admin'] = self.is_admin
        return values

    @classmethod
    def from_dict(cls, values, **kwargs):
        """Return the context a dict of ``to_dict`` describes.

        :param values: the dict.
        :param kwargs: values that take precedence over it.
        :returns: a RequestContext.
        """
        kwargs.setdefault('is_admin', values.get('is_admin', False))
        return super().from_dict(values, **kwargs)


def get_admin_context():
    """Return a context for internal work (manage commands, the scheduler)."""
    return RequestContext(user_id=None, project_id=None, is_admin=True,
                          overwrite=False)
