{#- nbgrader's page; its script gets the ids as JavaScript strings, its link the id quoted
    (attnkit.upstream.formgrader) -#}
{%- extends 'nbgrader/manage_students_notebook_submissions.tpl' -%}

{%- block head -%}
<script>
var student_id = {{ student_id | tojson }};
var assignment_id = {{ assignment_id | tojson }};
</script>

<script src="{{ base_url }}/formgrader/static/js/manage_students_notebook_submissions.js"></script>
{%- endblock head -%}

{%- block breadcrumbs -%}
<ol class="breadcrumb">
  <li><a href="{{ base_url }}/formgrader/manage_students">Students</a></li>
  <li><a href="{{ base_url }}/formgrader/manage_students/{{ student_id | urlencode }}">{{ student_id }}</a></li>
  <li class="active">{{ assignment_id }}</li>
</ol>
{%- endblock -%}
