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

"""nova_mini: a small OpenStack-style compute control plane."""

import warnings

# NOTE: futurist and oslo.service import eventlet when it is installed (an
# oslo.service dependency) just to see whether it is there; nova_mini never
# uses it, so its deprecation banner is noise for operators.
warnings.filterwarnings('ignore', message=r'\s*Eventlet is deprecated')

# NOTE: oslo.messaging imports oslo.service, whose default backend is
# eventlet. nova_mini runs on threads only, so choose the threading backend
# before anything imports oslo.service's services.
try:
    from oslo_service import backend as _service_backend
except ImportError:  # oslo.service too old to have backends, or absent
    _service_backend = None
if _service_backend is not None:
    try:
        _service_backend.init_backend(_service_backend.BackendType.THREADING)
    except Exception:  # already initialised by the embedding program
        pass
