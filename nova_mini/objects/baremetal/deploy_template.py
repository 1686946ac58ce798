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

"""DeployTemplate and DeployTemplateList: named lists of deploy steps
(Ironic's deploy templates). A deploy whose instance asks for the trait a
template is named after runs the template's steps
(nova_mini.objects.baremetal.deploy_steps).

Names and uuids are unique by the table's constraints: of concurrent
creates (or renames) to one name, the database lets one through and the
others get DeployTemplateDuplicateName.
"""

from oslo_utils import uuidutils

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import paging
from nova_mini.objects import base
from nova_mini.objects import fields

COLUMNS = ('id', 'uuid', 'name', 'steps', 'extra', 'created_at',
           'updated_at')
SORT_KEYS = ('id', 'uuid', 'name', 'created_at', 'updated_at')
# The keys of a stored step, in the order the API shows them.
STEP_KEYS = ('interface', 'step', 'args', 'priority')


def normalized_steps(steps):
    """Return ``steps`` as stored: each step's keys in STEP_KEYS order and
    its priority an integer (the API takes ``"10"`` as 10, as Ironic).
    """
    return [{'interface': step['interface'], 'step': step['step'],
             'args': step['args'], 'priority': int(step['priority'])}
            for step in steps]


@base.NovaMiniObjectRegistry.register
class DeployTemplate(db_row.DBRow, base.NovaMiniPersistentObject,
                     base.NovaMiniObject):
    """A deploy template: a trait name, its deploy steps and ``extra``."""

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = models.DeployTemplate
    COLUMNS = COLUMNS
    EMPTY = {'extra': {}}

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'steps': fields.ListOfFlexibleDictsField(),
        'extra': fields.FlexibleDictField(nullable=True),
    }

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.DeployTemplateNotFound(template=ident)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'name'):
            return exception_baremetal.DeployTemplateDuplicateName(name=values.get('name'))
        return exception_baremetal.DeployTemplateAlreadyExists(uuid=values.get('uuid'))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the template of uuid ``uuid``; DeployTemplateNotFound if
        none.
        """
        return cls._get_by(context, 'uuid', uuid)

    @classmethod
    def get_by_name(cls, context, name):
        """Load the template named ``name``; DeployTemplateNotFound if
        none.
        """
        return cls._get_by(context, 'name', name)

    def create(self):
        """Insert the template.

        :raises nova_mini.exception_baremetal.DeployTemplateDuplicateName: the name
            is taken.
        :raises nova_mini.exception_baremetal.DeployTemplateAlreadyExists: the uuid
            is taken.
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values['steps'] = normalized_steps(values['steps'])
        self._insert_row(values)

    def save(self):
        """Store the changed fields.

        :raises nova_mini.exception_baremetal.DeployTemplateDuplicateName: renamed to
            a name another template has.
        :raises nova_mini.exception_baremetal.DeployTemplateNotFound: it is gone.
        """
        values = self._column_changes()
        if 'steps' in values:
            values['steps'] = normalized_steps(values['steps'])
        self._update_row(values)

    def destroy(self):
        """Delete the template; DeployTemplateNotFound if it is gone."""
        self._delete_row()


@db_api.context_manager.reader
def _get_all(context, sort_key, sort_dir, limit, marker):
    try:
        return paging.page(
            context.session, context.session.query(models.DeployTemplate),
            models.DeployTemplate, sort_key, sort_dir, limit, marker)
    except exception.MarkerNotFound:
        # As Ironic, which loads the marker as a template.
        raise exception_baremetal.DeployTemplateNotFound(template=marker)


@db_api.context_manager.reader
def _get_by_names(context, names):
    return context.session.query(models.DeployTemplate).filter(
        models.DeployTemplate.name.in_(names)).order_by(
            models.DeployTemplate.id).all()


@base.NovaMiniObjectRegistry.register
class DeployTemplateList(db_row.DBRowList, base.ObjectListBase,
                         base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = DeployTemplate
    SORT_KEYS = SORT_KEYS

    fields = {
        'objects': fields.ListOfObjectsField('DeployTemplate'),
    }

    @classmethod
    def _rows(cls, context, filters, sort_key, sort_dir, limit, marker):
        return _get_all(context, sort_key, sort_dir, limit, marker)

    @classmethod
    def get_all(cls, context, sort_key='id', sort_dir='asc', limit=None,
                marker=None):
        """Load a page of deploy templates (no filters); see
        DBRowList.get_all.
        """
        return super().get_all(context, None, sort_key, sort_dir, limit,
                               marker)

    @classmethod
    def get_by_names(cls, context, names):
        """Load the templates named in ``names`` (those that exist), in
        the order they were created.
        """
        if not names:
            return cls._of_rows(context, [])
        return cls._of_rows(context, _get_by_names(context, list(names)))
