"""Request schemas of the flavor access actions."""


def _action(name):
    return {
        'type': 'object',
        'properties': {
            name: {
                'type': 'object',
                'properties': {
                    'tenant': {'type': 'string', 'minLength': 1,
                               'maxLength': 255},
                },
                'required': ['tenant'],
                'additionalProperties': False,
            },
        },
        'required': [name],
        'additionalProperties': False,
    }


add_tenant_access = _action('addTenantAccess')
remove_tenant_access = _action('removeTenantAccess')
