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

"""JSON patch (RFC 6902) as Ironic takes it: add, replace and remove,
applied to a copy of a resource's document.
"""

import copy

from nova_mini import exception


def _tokens(path):
    if not path.startswith('/'):
        raise exception.Invalid("Invalid patch path '%s'" % path)
    return [token.replace('~1', '/').replace('~0', '~')
            for token in path[1:].split('/')]


def _index(container, token, path, adding):
    if token == '-' and adding:
        return len(container)
    if not token.isdigit() or (len(token) > 1 and token[0] == '0'):
        raise exception.Invalid("Invalid list index in patch path '%s'"
                                % path)
    index = int(token)
    if index > len(container) or (index == len(container) and not adding):
        raise exception.Invalid("Patch path '%s' is out of range" % path)
    return index


def _parent(document, tokens, path):
    target = document
    for token in tokens[:-1]:
        try:
            if isinstance(target, list):
                target = target[_index(target, token, path, False)]
            elif isinstance(target, dict):
                target = target[token]
            else:
                raise KeyError(token)
        except KeyError:
            raise exception.Invalid("Patch path '%s' does not exist" % path)
    return target


def _apply_one(document, operation):
    op, path = operation['op'], operation['path']
    tokens = _tokens(path)
    parent = _parent(document, tokens, path)
    last = tokens[-1]
    if isinstance(parent, list):
        index = _index(parent, last, path, op == 'add')
        if op == 'add':
            parent.insert(index, operation['value'])
        elif op == 'replace':
            parent[index] = operation['value']
        else:
            del parent[index]
    elif isinstance(parent, dict):
        if op != 'add' and last not in parent:
            raise exception.Invalid(
                "Can't %s non-existent object '%s'" % (op, last))
        if op == 'remove':
            del parent[last]
        else:
            parent[last] = operation['value']
    else:
        raise exception.Invalid("Patch path '%s' does not exist" % path)


def apply(document, patch):
    """Return a copy of ``document`` changed by ``patch``; the original is
    left alone.

    :param document: the resource's document (a dict).
    :param patch: a list of operations, already checked against the patch
        schema.
    :returns: the patched copy.
    :raises nova_mini.exception.Invalid: an operation whose path does not
        exist or is out of range, or an add or replace without a value.
    """
    document = copy.deepcopy(document)
    for operation in patch:
        if operation['op'] in ('add', 'replace') and \
                'value' not in operation:
            raise exception.Invalid("'add' and 'replace' operations need a "
                                    "value")
        _apply_one(document, operation)
    return document
