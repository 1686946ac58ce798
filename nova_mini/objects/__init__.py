"""Versioned objects shared by every nova_mini daemon."""


def register_all():
    # Importing a module registers the objects it defines.
    __import__('nova_mini.objects.flavor')
    __import__('nova_mini.objects.node_trait')
    __import__('nova_mini.objects.node')
    __import__('nova_mini.objects.image_meta')
    __import__('nova_mini.objects.request_spec')
    __import__('nova_mini.objects.selection')
    __import__('nova_mini.objects.instance')
