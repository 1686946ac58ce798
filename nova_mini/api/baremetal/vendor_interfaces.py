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

"""The vendor interfaces of fake-hardware and their passthru methods.

``fake`` (the default) has Ironic 39's fake vendor methods, with their
HTTP methods, modes and locking: ``second_method``,
``third_method_sync`` and ``fourth_method_shared_lock`` need a true
``bar`` and tell whether it is ``kazoo``, ``meow`` and ``woof``;
``log_passthrough`` takes any arguments and logs them. Only
``third_method_sync`` is synchronous (its answer is the result); the
others are asynchronous, so their result is not returned (Ironic runs
them after answering 202 and drops what they return). ``no-vendor`` has
no method. Neither has a driver-level method.

A method is called with the body's members as its arguments: a body that
is not an object, or an argument a method does not take, is refused
(Ironic fails those with a 500, or after answering 202).
"""

from oslo_log import log as logging

from nova_mini import exception

LOG = logging.getLogger(__name__)


class Method(object):
    """A passthru method: what it runs and how it is served."""

    def __init__(self, func, http_methods, description, async_call=True,
                 attach=False, require_exclusive_lock=True, takes=None):
        self.func = func
        self.http_methods = http_methods
        self.description = description
        self.async_call = async_call
        self.attach = attach
        self.require_exclusive_lock = require_exclusive_lock
        # The arguments it takes (None: any).
        self.takes = takes

    def metadata(self, driver_level=False):
        """The method as GET .../vendor_passthru/methods lists it."""
        body = {'async': self.async_call,
                'attach': self.attach,
                'description': self.description,
                'http_methods': list(self.http_methods)}
        if not driver_level:
            body['require_exclusive_lock'] = self.require_exclusive_lock
        return body


def _needs_bar(method, args):
    if not args.get('bar'):
        raise exception.Invalid(
            "Parameter 'bar' not passed to method '%s': give it in the "
            "request body, e.g. {\"bar\": \"...\"}." % method)


def _is(expected):
    def method(bar):
        return bar == expected
    return method


def _log_passthrough(**kwargs):
    LOG.debug('Vendor passthru log_passthrough called with arguments %s.',
              kwargs)


_FAKE = {
    'second_method': Method(
        _is('kazoo'), ['POST'], 'Tells whether bar is kazoo.',
        takes=('bar',)),
    'third_method_sync': Method(
        _is('meow'), ['POST'], 'Tells whether bar is meow.',
        async_call=False, takes=('bar',)),
    'fourth_method_shared_lock': Method(
        _is('woof'), ['POST'], 'Tells whether bar is woof.',
        require_exclusive_lock=False, takes=('bar',)),
    'log_passthrough': Method(
        _log_passthrough, ['POST'], 'Logs the arguments it is given.'),
}

# vendor_interface -> {method name: Method} (node level), and the
# driver-level methods of each.
NODE_METHODS = {'fake': _FAKE, 'no-vendor': {}}
DRIVER_METHODS = {'fake': {}, 'no-vendor': {}}


def _validate(interface, name, args):
    if interface == 'fake' and name != 'log_passthrough':
        _needs_bar(name, args)


def call(methods, interface, name, http_method, args):
    """Call a passthru method, as Ironic's conductor does.

    :param methods: NODE_METHODS or DRIVER_METHODS.
    :param interface: the vendor interface.
    :param name: the method's name.
    :param http_method: the HTTP method of the request.
    :param args: the request body (None when there is none).
    :returns: ``(is_async, result)``; result is None when async.
    :raises nova_mini.exception.Invalid: no such method, an HTTP method it
        does not take, or arguments it refuses.
    """
    method = methods[interface].get(name)
    if method is None:
        raise exception.Invalid(
            'No handler for method %s: GET .../vendor_passthru/methods lists '
            'the methods there are.' % name)
    if http_method not in method.http_methods:
        raise exception.Invalid(
            'The method %s does not support HTTP %s: use %s.'
            % (name, http_method, ', '.join(method.http_methods)))
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise exception.Invalid(
            'The arguments of method %s must be a JSON object.' % name)
    _validate(interface, name, args)
    if method.takes is not None:
        unknown = sorted(set(args) - set(method.takes))
        if unknown:
            raise exception.Invalid(
                'Method %s does not take argument(s) %s; it takes %s.'
                % (name, ', '.join(unknown), ', '.join(method.takes)))
    if method.takes is None:
        # As Ironic's, a method taking any arguments is told the HTTP
        # method too.
        args = dict(args, http_method=http_method)
    result = method.func(**args)
    if method.async_call:
        return True, None
    return False, result
