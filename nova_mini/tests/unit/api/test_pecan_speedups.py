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

"""The argspec cache replaces a private name of pecan: these tests fail
loudly when pecan changes what it relies on (see
nova_mini/api/pecan_speedups.py), rather than letting the speed-up
silently stop working or answer differently from pecan.
"""

import inspect

import pecan
import pecan.compat
import pecan.core
import pecan.rest
import pecan.routing
import pecan.util
import webob

from nova_mini.api.compute import flavor_extra_specs
from nova_mini.api.compute import flavors
from nova_mini.api import pecan_speedups


def test_the_replaced_name_is_still_what_pecan_util_getargspec_calls():
    assert pecan.util._getargspec is pecan_speedups.cached_getargspec, (
        'pecan.util._getargspec is not the cache any more: did pecan '
        'rename it, or did something replace it again?')
    source = inspect.getsource(pecan.util.getargspec)
    assert '_getargspec(method)' in source, (
        'pecan.util.getargspec no longer calls _getargspec: the cache in '
        'nova_mini/api/pecan_speedups.py has no effect; remove it or '
        'find the new hook')


def test_pecan_routes_through_pecan_util_getargspec():
    # If pecan stopped using util.getargspec on the request path, the
    # patch would be dead code.
    for module in (pecan.core, pecan.rest, pecan.routing):
        assert module.getargspec is pecan.util.getargspec, module.__name__


def test_the_replaced_function_keeps_its_signature():
    assert pecan_speedups.PECAN_GETARGSPEC is not \
        pecan_speedups.cached_getargspec
    assert list(inspect.signature(
        pecan_speedups.PECAN_GETARGSPEC).parameters) == ['func']


def _controller_methods():
    for cls in (flavors.FlavorsController,
                flavor_extra_specs.FlavorExtraSpecsController):
        for name in ('get_all', 'get_one', 'post', 'put', 'delete',
                     'detail', '_lookup', '_handle_get', '_handle_post'):
            method = getattr(cls, name, None)
            if method is not None:
                yield method
                yield method.__get__(cls.__new__(cls))     # bound


def test_answers_exactly_as_pecan_does():
    for method in _controller_methods():
        ours = pecan_speedups.cached_getargspec(method)
        theirs = pecan_speedups.PECAN_GETARGSPEC(method)
        assert tuple(ours) == tuple(theirs), method
        assert ours._fields == theirs._fields
        # and through pecan's decorator-drilling wrapper
        assert tuple(pecan.util.getargspec(method)) == tuple(theirs)


def test_a_function_is_computed_once():
    def handler(self, flavor_id, key=None):
        pass
    first = pecan_speedups.cached_getargspec(handler)
    assert pecan_speedups.cached_getargspec(handler) is first
    bound = handler.__get__(object())
    assert pecan_speedups.cached_getargspec(bound) is first
    assert first.args == ['self', 'flavor_id', 'key']
    assert first.defaults == (None,)


def test_other_callables_are_not_cached():
    class Callable(object):
        def __call__(self, a):
            pass
    obj = Callable()
    before = pecan_speedups._function_argspec.cache_info().currsize
    assert tuple(pecan_speedups.cached_getargspec(obj)) == tuple(
        pecan_speedups.PECAN_GETARGSPEC(obj))
    assert pecan_speedups._function_argspec.cache_info().currsize == before


def test_sub_resource_controller_checks_its_class_once():
    class Child(pecan_speedups.SubResourceController):
        def __init__(self, parent_id):
            self.parent_id = parent_id

        @pecan.expose()
        def get_all(self):
            pass

    first = Child('p1')
    assert Child in pecan_speedups._CHECKED_CLASSES
    assert first.parent_id == 'p1' and Child('p2').parent_id == 'p2'
    assert isinstance(first, pecan.rest.RestController)


def test_sub_resource_controller_refuses_routes_as_pecan_does():
    # pecan refuses route= on a RestController when it is made; so must
    # the check done once per class (and again for a class that failed).
    class Routed(pecan_speedups.SubResourceController):
        @pecan.expose(route='some-path')
        def get_all(self):
            pass

    for _ in range(2):
        try:
            Routed()
        except ValueError as exc:
            assert 'Path segments cannot be used' in str(exc)
        else:
            raise AssertionError('pecan no longer refuses route= on a '
                                 'RestController, or the check is skipped')
    assert Routed not in pecan_speedups._CHECKED_CLASSES


def test_the_scan_replaced_is_still_what_pecan_routing_calls():
    assert (pecan.routing._detect_custom_path_segments
            is pecan_speedups.detect_custom_path_segments), (
        'pecan.routing._detect_custom_path_segments is not ours any more')
    assert '_detect_custom_path_segments(obj)' in inspect.getsource(
        pecan.routing.find_object), (
        'pecan.routing.find_object no longer calls '
        '_detect_custom_path_segments: remove the speed-up or find the '
        'new hook')
    assert (pecan_speedups._OBSERVED_CONTROLLERS
            is pecan.routing.__observed_controllers__)
    assert list(inspect.signature(
        pecan_speedups.PECAN_DETECT_CUSTOM_PATH_SEGMENTS).parameters) == [
            'obj']
    assert '__observed_controllers__.add(obj.__class__)' in \
        inspect.getsource(pecan_speedups.PECAN_DETECT_CUSTOM_PATH_SEGMENTS)


class _Counted(object):
    """A controller that counts how often its attributes are listed."""

    dir_calls = 0

    def __dir__(self):
        type(self).dir_calls += 1
        return super().__dir__()

    @pecan.expose(route='custom-path')
    def custom(self):
        return 'custom'


def test_a_controller_class_is_scanned_once():
    class Root(_Counted):
        pass

    pecan.routing._detect_custom_path_segments(Root())
    assert Root.dir_calls >= 1
    assert pecan.routing.__custom_routes__[(Root, 'custom-path')] == 'custom'
    scanned = Root.dir_calls
    for _ in range(3):
        pecan.routing._detect_custom_path_segments(Root())
    # pecan's own function lists the attributes on every call.
    assert Root.dir_calls == scanned


def test_custom_routes_and_their_conflicts_are_still_pecans():
    class Root(_Counted):
        @pecan.expose()
        def index(self):
            return 'index'

    app = pecan.Pecan(Root(), use_context_locals=True)
    for _ in range(2):
        response = webob.Request.blank('/custom-path').get_response(app)
        assert (response.status_int, response.text) == (200, 'custom')

    class Clash(object):
        @pecan.expose(route='taken')
        def one(self):
            pass

        taken = 'an attribute of that name'

    for _ in range(2):
        try:
            pecan.routing._detect_custom_path_segments(Clash())
        except RuntimeError as exc:
            assert 'existing attribute named "taken"' in str(exc)
        else:
            raise AssertionError('the conflict is no longer refused')
    assert Clash not in pecan.routing.__observed_controllers__


class _Request(object):
    """A request bound to pecan's thread state that counts path reads."""

    reads = 0

    @property
    def path(self):
        type(self).reads += 1
        return '/'


def test_the_argument_lookup_replaced_is_still_pecans_hook():
    assert (pecan.rest.RestController._get_args_for_controller
            is pecan_speedups.get_args_for_controller)
    source = inspect.getsource(pecan.rest.RestController)
    assert 'self._get_args_for_controller(' in source
    # What pecan's does, and what is skipped.
    assert 'request.path' in inspect.getsource(
        pecan_speedups.PECAN_GET_ARGS_FOR_CONTROLLER)


def test_arguments_as_pecan_answers_them_without_the_path():
    pecan.Pecan(flavors.FlavorsController())     # pecan's thread state
    controller = flavor_extra_specs.FlavorExtraSpecsController('f1')
    ours = pecan_speedups.get_args_for_controller
    theirs = pecan_speedups.PECAN_GET_ARGS_FOR_CONTROLLER
    methods = list(_controller_methods())
    # No request bound: pecan passes request and response as arguments.
    for method in methods:
        assert ours(controller, method) == theirs(controller, method)
    pecan.core.state.request = _Request()
    try:
        for method in methods:
            reads = _Request.reads
            assert ours(controller, method) == theirs(controller, method)
            assert _Request.reads == reads + 1      # pecan's read only

        def handler(self, flavor_id, key):
            pass
        assert ours(controller, handler) == ['flavor_id', 'key']
    finally:
        del pecan.core.state.request
