{#- nbgrader's page; its script gets the id as a JavaScript string (attnkit.upstream.formgrader) -#}
{%- extends 'nbgrader/manage_submissions.tpl' -%}

{%- block head -%}
<script>
var assignment_id = {{ assignment_id | tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_submissions.js"></script>
{%- endblock head -%}
