"""nova_mini: a small OpenStack-style compute control plane."""

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
