{#- nbgrader's page; its script gets the id as a JavaScript string (attnkit.upstream.formgrader) -#}
{%- extends 'nbgrader/manage_students_assignments.tpl' -%}

{%- block head -%}
<script>
var student_id = {{ student_id | tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_students_assignments.js"></script>
{%- endblock head -%}
