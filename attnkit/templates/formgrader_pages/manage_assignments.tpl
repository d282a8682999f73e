{#- nbgrader's page; its script gets the values as JavaScript strings
    (attnkit.upstream.formgrader) -#}
{%- extends 'nbgrader/manage_assignments.tpl' -%}

{%- block head -%}
<script>
var url_prefix = {{ url_prefix | tojson }};
var default_timezone = {{ default_timezone | tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_assignments.js"></script>
{%- endblock -%}
