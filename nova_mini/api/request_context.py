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

"""The RequestContext of an API request, built once from the identity
headers that authentication set (nova_mini.api.auth) and kept in the WSGI
environ for the handlers (``wsgi.APIRequest.ctxt``).
"""

from nova_mini import context as nm_context
from nova_mini import policy

CONTEXT_KEY = 'nova_mini.context'


def context_from_environ(environ):
    """Build (once) the RequestContext of an authenticated request."""
    context = environ.get(CONTEXT_KEY)
    if context is None:
        context = nm_context.RequestContext.from_environ(environ)
        context.is_admin = policy.check_is_admin(context)
        environ[CONTEXT_KEY] = context
    return context
