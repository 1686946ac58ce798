# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Four speed-ups of pecan's routing: its argspec look-ups cached, its
custom-route scan of a controller skipped once the controller's class is
scanned, and RestController's look-up of a handler's arguments without
computing the request's path (the three changes that reach into pecan's
private parts), and controllers made for each request checked once per
class (``SubResourceController``, plain subclassing).

pecan asks for the argspec of a controller method several times per
request (routing, RestController dispatch, keyword filtering) through
``pecan.util.getargspec``, which calls the module-level name
``pecan.util._getargspec`` (``pecan.compat.getargspec``). That function
builds a new namedtuple *class* and a full ``inspect.Signature`` on every
call: measured with ``tools/bench/flavors_api.py``'s request path
in-process, 0.36 ms of ``GET /flavors/detail`` (1.97 -> 1.61 ms) and
0.5 ms of the extra-spec POST (1.76 -> 1.23 ms). pecan has no public hook
for it, so the name is replaced here, and nowhere else.

pecan's URL walk (``pecan.routing.find_object``) calls the module-level
``_detect_custom_path_segments`` for every controller it passes through
(four for an extra-spec POST). That function builds ``set(dir(obj))`` on
every call, though it only uses it the first time it sees the object's
class (it records the class in ``__observed_controllers__`` and the
custom routes it found, and does nothing more for that class): 6 % of the
extra-spec POST in process (py-spy). ``detect_custom_path_segments``
returns at once for a class already observed, and calls pecan's function
otherwise, so that its checks and its errors stay pecan's.

``RestController._get_args_for_controller`` (four calls for an extra-spec
POST) reads ``pecan.request.path`` only to learn whether a request is
bound to the thread (else pecan passes request and response as
arguments): webob builds the quoted path each time.
``get_args_for_controller`` asks pecan's thread state directly.

``nova_mini/tests/unit/api/test_pecan_speedups.py`` fails loudly when
pecan changes what this relies on (the names, their signatures, the shape
of their answers, or the callers still going through them).
"""

import collections
import functools
import inspect
import types

import pecan.compat
import pecan.core
from pecan import rest
import pecan.routing
import pecan.util

ArgSpec = collections.namedtuple('ArgSpec', 'args varargs keywords defaults')

# What is replaced, kept for the tests (and to undo).
PECAN_GETARGSPEC = pecan.compat.getargspec
PECAN_DETECT_CUSTOM_PATH_SEGMENTS = (
    pecan.routing._detect_custom_path_segments)
PECAN_GET_ARGS_FOR_CONTROLLER = rest.RestController._get_args_for_controller


@functools.lru_cache(maxsize=None)
def _function_argspec(func):
    args, varargs, keywords, defaults = inspect.getfullargspec(func)[:4]
    return ArgSpec(args, varargs, keywords, defaults)


def cached_getargspec(func):
    """Return pecan's argspec of ``func``, computed once per function.

    A function's argspec never changes, so it is kept, keyed on the
    function object itself (the cache holds a reference: it cannot be
    confused with a later object at the same address). A bound method
    shares its function's entry: pecan's argspec keeps ``self`` either
    way. Anything else (a callable object) is not cached.

    :param func: a function or bound method.
    :returns: ``ArgSpec(args, varargs, keywords, defaults)``, as
        ``pecan.compat.getargspec`` answers.
    """
    function = getattr(func, '__func__', func)
    if isinstance(function, types.FunctionType):
        return _function_argspec(function)
    return PECAN_GETARGSPEC(func)


def detect_custom_path_segments(obj):
    """pecan's custom-route scan of controller ``obj``, done once per class.

    pecan's function scans a class it has not observed yet (registering
    its custom routes, raising on conflicts) and then adds it to
    ``pecan.routing.__observed_controllers__``; for an observed class it
    computes ``set(dir(obj))`` and uses nothing of it. Here an observed
    class returns at once; anything else goes to pecan's function.

    :param obj: a controller pecan's routing passes through.
    """
    if obj.__class__ in _OBSERVED_CONTROLLERS:
        return
    PECAN_DETECT_CUSTOM_PATH_SEGMENTS(obj)


# pecan's own set (a module-level name: no name mangling here).
_OBSERVED_CONTROLLERS = pecan.routing.__observed_controllers__


def get_args_for_controller(self, controller):
    """pecan's ``RestController._get_args_for_controller``: the argument
    names a handler takes from the URL, that is after ``self`` when the
    request is bound to the thread (pecan's context locals), after
    ``self, req, resp`` otherwise; without reading the request's path.
    """
    args = pecan.util.getargspec(controller).args
    if getattr(pecan.core.state, 'request', None) is None:
        return args[3:]
    return args[1:]


class SubResourceController(rest.RestController):
    """A RestController made for each request, such as a sub-resource
    that keeps its parent's id (``FlavorExtraSpecsController(flavor_id)``).

    pecan's ``RestController.__new__`` checks the class for ``route=``
    arguments (which REST controllers cannot use) with
    ``inspect.getmembers`` on every instantiation: 4 % of the extra-spec
    POST. A class does not change, so here the check runs once per class,
    on its first instance, and raises as pecan's does.
    """

    def __new__(cls, *args, **kwargs):
        if cls not in _CHECKED_CLASSES:
            rest.RestController.__new__(cls)    # pecan's check
            _CHECKED_CLASSES.add(cls)
        return object.__new__(cls)


_CHECKED_CLASSES = set()


def install():
    """Make pecan's routing use ``cached_getargspec`` and
    ``detect_custom_path_segments`` (idempotent).
    """
    pecan.util._getargspec = cached_getargspec
    pecan.routing._detect_custom_path_segments = detect_custom_path_segments
    rest.RestController._get_args_for_controller = get_args_for_controller


install()
