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

"""Sphinx extension: the flavor extra spec and image property references,
rendered from the definitions themselves, and roles to link to any extra
spec or image property.

Documentation tooling, kept out of the ``nova_mini`` package so that the
daemons never import Sphinx. In ``conf.py``::

    sys.path.insert(0, os.path.abspath('../ext'))
    extensions = ['extra_specs']

In a document::

    .. extra-specs::

       Every definition, one section per namespace.

    .. extra-specs:: hw

       The definitions of one namespace, without a section of their own
       (the page supplies the heading). ``:no-index:`` renders definitions
       without link targets, for a second rendering of the same keys.

    :extra-spec:`hw:cpu_policy`        a link to a definition
    :extra-spec:`hw:numa_cpus.{id}`    to a patterned one, by its name
    :extra-spec:`hw:numa_cpus.0`       to the patterned definition matching
                                       a concrete key

    .. image-properties::

       Every image property definition, one section per prefix (``hw``,
       ``img``, ``os``, ``trait``, then the legacy names).

    .. image-properties:: hw

       The definitions of one prefix (``legacy``: the names without one).

    :image-property:`hw_cpu_policy`    a link to an image property
    :image-property:`hw_numa_cpus.0`   to the family a key belongs to

The roles belong to the ``nova-mini`` domain (``:nova-mini:extra-spec:``
and ``:nova-mini:image-property:`` are the long forms), so a link to a key
no rendered definition matches is a warning, and an error with ``-W``.

The two references link each other: an image property names the flavor
extra spec it mirrors (``hw_cpu_policy`` and ``hw:cpu_policy``), and an
extra spec the image properties mirroring it, as links when the other
definition is rendered in the same project (as plain names otherwise).

Descriptions are reStructuredText. One that does not parse cleanly (a
lone ``*`` or backquote, say, in an operator's plugin) is shown as plain
text instead of breaking the build; names, patterns, enum values and
examples are never parsed at all.

Configuration values:

``nova_mini_extra_specs``
    ``'module:attribute'`` naming the definitions to render (a Registry, a
    list of ExtraSpec, or a callable returning either); empty (the
    default) for nova_mini's in-tree definitions.
``nova_mini_extra_specs_plugins``
    Also render operators' definitions from the
    ``nova_mini.extra_spec_validators`` entry point (default False, so
    that nova_mini's own documentation does not depend on what happens to
    be installed).
``nova_mini_image_properties``, ``nova_mini_image_properties_plugins``
    The same for image properties (entry point
    ``nova_mini.image_property_validators``).
"""

import importlib
import re

from docutils import nodes
from docutils.parsers.rst import directives
from docutils import statemachine
from docutils import utils as docutils_utils
from sphinx import addnodes
from sphinx.domains import Domain
from sphinx.domains import ObjType
from sphinx.roles import XRefRole
from sphinx.util.docutils import SphinxDirective
from sphinx.util import logging
from sphinx.util.nodes import make_id
from sphinx.util.nodes import make_refnode

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import registry as registry_mod
from nova_mini.api.validation.image_properties import registry as ip_registry

LOG = logging.getLogger(__name__)

DOMAIN = 'nova-mini'
OBJTYPE = 'extra-spec'
IMAGE_OBJTYPE = 'image-property'
NO_NAMESPACE_TITLE = 'Without a namespace'
LEGACY_TITLE = 'Legacy names'
# Where the domain keeps the definitions of each object type.
_STORES = {OBJTYPE: 'specs', IMAGE_OBJTYPE: 'image_properties'}

# Markup that parses without complaint but only resolves (or fails) later,
# against targets the description cannot know about.
_DANGLING = (nodes.substitution_reference, nodes.footnote_reference,
             nodes.citation_reference, nodes.problematic)


class ExtraSpecDomain(Domain):
    """Extra spec and image property definitions as cross-reference
    targets.
    """

    name = DOMAIN
    label = 'nova_mini'
    object_types = {OBJTYPE: ObjType('extra spec', OBJTYPE),
                    IMAGE_OBJTYPE: ObjType('image property', IMAGE_OBJTYPE)}
    roles = {OBJTYPE: XRefRole(innernodeclass=nodes.literal,
                               warn_dangling=True),
             IMAGE_OBJTYPE: XRefRole(innernodeclass=nodes.literal,
                                     warn_dangling=True)}
    directives = {}  # filled in below
    dangling_warnings = {
        OBJTYPE: 'no extra spec definition matches %(target)s',
        IMAGE_OBJTYPE: 'no image property definition matches %(target)s'}
    # specs, image_properties: name -> (docname, node id, regex of a
    #     patterned name or None)
    # documents: docnames rendering definitions (re-read on every build)
    initial_data = {'specs': {}, 'image_properties': {}, 'documents': set()}
    data_version = 2

    def __init__(self, env):
        super().__init__(env)
        self._compiled = {}

    @property
    def specs(self):
        return self.data['specs']

    def store(self, objtype):
        return self.data.setdefault(_STORES[objtype], {})

    def note_spec(self, spec, docname, node_id, location, objtype=OBJTYPE):
        store = self.store(objtype)
        if spec.name in store:
            other = store[spec.name][0]
            LOG.warning('%s %s is already described in %s; use :no-index: '
                        'on one of them', self.object_types[objtype].lname,
                        spec.name, self.env.doc2path(other),
                        location=location)
            return
        store[spec.name] = (docname, node_id,
                            spec.regex.pattern if spec.patterned else None)

    def note_document(self, docname):
        self.data['documents'].add(docname)

    def clear_doc(self, docname):
        for objtype in _STORES:
            store = self.store(objtype)
            for name, entry in list(store.items()):
                if entry[0] == docname:
                    del store[name]
        self.data['documents'].discard(docname)

    def merge_domaindata(self, docnames, otherdata):
        for objtype, key in _STORES.items():
            store = self.store(objtype)
            for name, entry in otherdata.get(key, {}).items():
                if entry[0] in docnames:
                    store.setdefault(name, entry)
        self.data['documents'].update(
            d for d in otherdata['documents'] if d in docnames)

    def find(self, target, objtype=OBJTYPE):
        """The (name, entry) of the definition ``target`` names or, for a
        concrete key, of the patterned definition matching it.
        """
        store = self.store(objtype)
        entry = store.get(target)
        if entry is not None:
            return target, entry
        for name, entry in sorted(store.items()):
            pattern = entry[2]
            if pattern is None:
                continue
            regex = self._compiled.get(pattern)
            if regex is None:
                regex = self._compiled[pattern] = re.compile(pattern)
            if regex.fullmatch(target):
                return name, entry
        return None, None

    def resolve_xref(self, env, fromdocname, builder, typ, target, node,
                     contnode):
        name, entry = self.find(target, typ)
        if entry is None:
            return None
        return make_refnode(builder, fromdocname, entry[0], entry[1],
                            contnode, '%s %s' % (
                                self.object_types[typ].lname, name))

    def resolve_any_xref(self, env, fromdocname, builder, target, node,
                         contnode):
        found = []
        for objtype in _STORES:
            ref = self.resolve_xref(env, fromdocname, builder, objtype,
                                    target, node, contnode)
            if ref:
                found.append(('%s:%s' % (DOMAIN, objtype), ref))
        return found

    def get_objects(self):
        for objtype in _STORES:
            for name, (docname, node_id, _pattern) in \
                    self.store(objtype).items():
                yield name, name, objtype, docname, node_id, 1


class ExtraSpecRole(XRefRole):
    """``:extra-spec:``, the short form of ``:nova-mini:extra-spec:``."""

    objtype = OBJTYPE

    def run(self):
        self.name = '%s:%s' % (DOMAIN, self.objtype)
        return super().run()


class ImagePropertyRole(ExtraSpecRole):
    """``:image-property:``, the short form of
    ``:nova-mini:image-property:``.
    """

    objtype = IMAGE_OBJTYPE


_registries = {}


def _load(source, plugins, module):
    key = (module.__name__, source, plugins)
    if key not in _registries:
        if source:
            module_name, _sep, attribute = source.partition(':')
            found = importlib.import_module(module_name)
            for part in filter(None, attribute.split('.')):
                found = getattr(found, part)
            if callable(found) and not isinstance(found, module.Registry):
                found = found()
            if not isinstance(found, module.Registry):
                found = module.Registry(found)
        else:
            found = module.build(include_plugins=plugins)
        _registries[key] = found
    return _registries[key]


def load_registry(config):
    """The extra spec definitions a build renders (cached per process)."""
    return _load(config.nova_mini_extra_specs,
                 bool(config.nova_mini_extra_specs_plugins), registry_mod)


def load_image_registry(config):
    """The image property definitions a build renders (cached per
    process).
    """
    return _load(config.nova_mini_image_properties,
                 bool(config.nova_mini_image_properties_plugins),
                 ip_registry)


def _plain_paragraphs(text):
    return [nodes.paragraph(chunk, chunk)
            for chunk in re.split(r'\n\s*\n', text.strip()) if chunk]


class ExtraSpecsDirective(SphinxDirective):
    """Render the extra spec definitions, all or those of one namespace."""

    optional_arguments = 1
    option_spec = {'no-index': directives.flag}
    has_content = False

    objtype = OBJTYPE
    what = 'extra spec'
    section_prefix = 'extra-specs'
    # The title of the section of definitions without a namespace, and
    # the directive argument naming them.
    none_title = NO_NAMESPACE_TITLE
    none_argument = None
    drivers_label = 'Virt drivers'
    plugin_namespace = registry_mod.PLUGIN_NAMESPACE

    def load(self):
        return load_registry(self.config)

    def load_other(self):
        """The definitions of the other kind, for the links between the
        two references.
        """
        return load_image_registry(self.config)

    def run(self):
        try:
            self.registry = self.load()
        except Exception as exc:
            LOG.warning('cannot load the %s definitions: %s', self.what, exc,
                        location=self.get_location())
            return []
        try:
            self.other = self.load_other()
        except Exception as exc:
            LOG.verbose('no links to the other definitions: %s', exc)
            self.other = None
        self.domain = self.env.get_domain(DOMAIN)
        self.domain.note_document(self.env.docname)
        self.index = 'no-index' not in self.options
        groups = {}
        self.names = set()
        for spec in self.registry:
            groups.setdefault(spec.namespace, []).append(spec)
            self.names.add(spec.name)
        if self.arguments:
            namespace = self.arguments[0]
            if namespace == self.none_argument:
                namespace = None
            if namespace not in groups:
                LOG.warning('no %s uses the namespace %r (known: %s)',
                            self.what, self.arguments[0], ', '.join(
                                sorted(n for n in groups if n)),
                            location=self.get_location())
                return []
            return [self._spec(s) for s in groups[namespace]]
        result = []
        for namespace in sorted(groups, key=lambda n: (n is None, n or '')):
            result.append(self._section(namespace, groups[namespace]))
        return result

    # Layout

    def _section(self, namespace, specs):
        section = nodes.section()
        section['ids'].append(make_id(self.env, self.state.document,
                                      self.section_prefix,
                                      namespace or 'none'))
        title = nodes.title()
        if namespace is None:
            title += nodes.Text(self.none_title)
        else:
            title += nodes.literal(namespace, namespace)
        section += title
        for spec in specs:
            section += self._spec(spec)
        return section

    def _spec(self, spec):
        desc = addnodes.desc(domain=DOMAIN, objtype=self.objtype,
                             desctype=self.objtype,
                             classes=[DOMAIN, self.objtype],
                             no_index=not self.index)
        signature = addnodes.desc_signature(spec.name, '')
        signature += addnodes.desc_name(spec.name, spec.name)
        desc += signature
        if self.index:
            node_id = make_id(self.env, self.state.document, self.objtype,
                              spec.name)
            signature['ids'].append(node_id)
            self.state.document.note_explicit_target(signature)
            self.domain.note_spec(spec, self.env.docname, node_id,
                                  self.get_location(), self.objtype)
            desc.insert(0, addnodes.index(entries=[
                ('single', '%s (%s)' % (spec.name, self.what), node_id, '',
                 None)]))
        content = addnodes.desc_content()
        content.extend(self._prose(spec.description))
        fields = nodes.field_list()
        if spec.parameters:
            fields += self._field('Parameters', self._parameters(spec))
        fields += self._field('Value', self._value(spec))
        fields += self._field('Status', self._support(spec.support))
        for name, body in self._links(spec):
            fields += self._field(name, body)
        if spec.drivers:
            fields += self._field(self.drivers_label, [nodes.paragraph(
                '', ', '.join(spec.drivers))])
        if spec.requires:
            paragraph = nodes.paragraph()
            for i, required in enumerate(spec.requires):
                if i:
                    paragraph += nodes.Text(', ')
                paragraph += self._key(required)
            fields += self._field('Requires', [paragraph])
        if spec.example is not None:
            fields += self._field('Example', [nodes.paragraph(
                '', '', self._literal(self._example(spec)))])
        fields += self._field('Source', [self._source(spec)])
        content += fields
        desc += content
        return desc

    def _field(self, name, body):
        field = nodes.field()
        field += nodes.field_name(name, name)
        field += nodes.field_body('', *body)
        return field

    # Parts of a definition

    def _parameters(self, spec):
        items = nodes.bullet_list()
        for parameter in spec.parameters:
            item = nodes.list_item()
            head = nodes.paragraph()
            head += self._literal('{%s}' % parameter.name)
            head += nodes.Text(' (matches ')
            head += self._literal(parameter.pattern)
            head += nodes.Text(')')
            item += head
            item.extend(self._prose(parameter.description))
            items += item
        return [items]

    def _value(self, spec):
        return [self._sentence(spec.value.describe_parts())] + self._prose(
            spec.value.description)

    def _links(self, spec):
        """(field name, body) of the image properties mirroring ``spec``.
        """
        if self.other is None:
            return []
        mirrors = [p.name for p in self.other
                   if getattr(p, 'mirrors', None) == spec.name]
        if not mirrors:
            return []
        paragraph = nodes.paragraph()
        for i, name in enumerate(mirrors):
            if i:
                paragraph += nodes.Text(', ')
            paragraph += self._key(name)
        return [('Image properties' if len(mirrors) > 1
                 else 'Image property', [paragraph])]

    def _support(self, support):
        sentence = self._sentence(support.describe_parts())
        if support.status == base.DEPRECATED:
            # The first words ("Deprecated since ...") stand out.
            first = sentence.children[0]
            sentence.replace(first, nodes.strong('', first.astext()))
        return [sentence] + self._prose(support.note)

    def _sentence(self, parts):
        """The registry's phrase (``describe_parts``) as a paragraph: a
        capital, code for its literals, links for its keys, a full stop.
        """
        parts = [parts[0][:1].upper() + parts[0][1:]] + parts[1:] + ['.']
        paragraph = nodes.paragraph()
        for part in parts:
            if isinstance(part, base.Key):
                paragraph += self._key(part)
            elif isinstance(part, base.Literal):
                paragraph += self._literal(part)
            else:
                paragraph += nodes.Text(part)
        return paragraph

    def _source(self, spec):
        paragraph = nodes.paragraph()
        if spec.source == 'nova_mini':
            paragraph += nodes.Text('nova_mini (in tree)')
        else:
            paragraph += nodes.Text('plugin ')
            paragraph += self._literal(spec.source)
            paragraph += nodes.Text(' (entry point %s)'
                                    % self.plugin_namespace)
        return paragraph

    @staticmethod
    def _example(spec):
        example = str(spec.example)
        key, sep, _value = example.partition('=')
        if sep and (key == spec.name or spec.matches(key)):
            return example
        if spec.patterned:
            return example
        return '%s=%s' % (spec.name, example)

    def _key(self, text):
        """``text`` (a key, or ``key=value``) linking to its definition
        (an extra spec or an image property) when there is one; silently
        unlinked otherwise.
        """
        key = text.split('=', 1)[0]
        literal = self._literal(text)
        if key in self.names or self.registry.lookup(key) is not None:
            reftype = self.objtype
        elif self.other is not None and (
                self.other.lookup(key) is not None or
                any(d.name == key for d in self.other)):
            reftype = (IMAGE_OBJTYPE if self.objtype == OBJTYPE
                       else OBJTYPE)
        else:
            return literal
        ref = addnodes.pending_xref(
            '', refdomain=DOMAIN, reftype=reftype, reftarget=key,
            refexplicit=True, refwarn=False, refdoc=self.env.docname)
        ref += literal
        return ref

    @staticmethod
    def _literal(text):
        return nodes.literal(text, text)

    def _prose(self, text):
        """``text`` as reStructuredText, or as plain paragraphs when it is
        not valid reStructuredText.
        """
        if not text or not text.strip():
            return []
        container = nodes.container()
        problems = []
        document = self.state.document
        quiet = docutils_utils.Reporter(
            document.reporter.source, report_level=5, halt_level=5,
            stream=False)
        if hasattr(document.reporter, 'get_source_and_line'):
            quiet.get_source_and_line = document.reporter.get_source_and_line
        quiet.attach_observer(problems.append)
        memo = self.state.memo
        saved = (document.reporter, getattr(memo, 'reporter', None))
        # NOTE: docutils >= 0.22 reports through document.reporter, older
        # releases through memo.reporter; silence both while parsing.
        document.reporter = quiet
        if saved[1] is not None:
            memo.reporter = quiet
        try:
            self.state.nested_parse(
                statemachine.StringList(text.splitlines(),
                                        source='<extra spec definition>'),
                self.content_offset, container)
        finally:
            document.reporter = saved[0]
            if saved[1] is not None:
                memo.reporter = saved[1]
        broken = any(message['level'] >= quiet.WARNING_LEVEL
                     for message in problems)
        broken = broken or any(container.findall(
            lambda n: isinstance(n, _DANGLING) or (
                isinstance(n, nodes.reference) and 'refname' in n)))
        if broken:
            LOG.verbose('extra spec text shown as plain text (not valid '
                        'reStructuredText): %r', text,
                        location=self.get_location())
            return _plain_paragraphs(text)
        return list(container.children)


class ImagePropertiesDirective(ExtraSpecsDirective):
    """Render the image property definitions, all or those of one prefix
    (``legacy``: the names without one).
    """

    objtype = IMAGE_OBJTYPE
    what = 'image property'
    section_prefix = 'image-properties'
    none_title = LEGACY_TITLE
    none_argument = 'legacy'
    drivers_label = 'Read by'
    plugin_namespace = ip_registry.PLUGIN_NAMESPACE

    def load(self):
        return load_image_registry(self.config)

    def load_other(self):
        return load_registry(self.config)

    def _value(self, spec):
        return [self._sentence(spec.describe_value_parts())] + self._prose(
            spec.value.description)

    def _links(self, spec):
        links = []
        if spec.mirrors:
            links.append(('Flavor extra spec', [nodes.paragraph(
                '', '', self._key(spec.mirrors))]))
        if spec.field != spec.name:
            links.append(('Nova field', [nodes.paragraph(
                '', '', self._literal(spec.field))]))
        return links


ExtraSpecDomain.directives = {'extra-specs': ExtraSpecsDirective,
                              'image-properties': ImagePropertiesDirective}


def _outdated(app, env, added, changed, removed):
    # Definitions live in Python, not in the documents: re-read the pages
    # that render them on every build.
    domain = env.get_domain(DOMAIN)
    return sorted(domain.data['documents'] - set(removed))


def setup(app):
    app.add_config_value('nova_mini_extra_specs', '', 'env', types=(str,))
    app.add_config_value('nova_mini_extra_specs_plugins', False, 'env',
                         types=(bool,))
    app.add_config_value('nova_mini_image_properties', '', 'env',
                         types=(str,))
    app.add_config_value('nova_mini_image_properties_plugins', False, 'env',
                         types=(bool,))
    app.add_domain(ExtraSpecDomain)
    app.add_directive('extra-specs', ExtraSpecsDirective)
    app.add_directive('image-properties', ImagePropertiesDirective)
    app.add_role(OBJTYPE, ExtraSpecRole(innernodeclass=nodes.literal,
                                        warn_dangling=True))
    app.add_role(IMAGE_OBJTYPE, ImagePropertyRole(
        innernodeclass=nodes.literal, warn_dangling=True))
    app.connect('env-get-outdated', _outdated)
    return {'version': '1.0', 'parallel_read_safe': True,
            'parallel_write_safe': True, 'env_version': 2}
